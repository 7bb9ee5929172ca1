# frozen_string_literal: true

require_relative "retry_handler"
require_relative "job_gate"
require_relative "over_limit_handler"
require_relative "class_hold"
require_relative "outcomes"
require_relative "chunk_runner"
require_relative "cancel_watch"
require_relative "../class_lookup"
require_relative "../balance/class_times"

module Deckhand
  module Server
    module Run
      # Runs one fetched job: decode, find the class, server middleware, perform,
      # then settle the outcome. Success is acknowledged through the fetcher (in a
      # batch); a failure's retry or dead record is written together with the
      # job's mark in its lot in one atomic step, so a job is never acknowledged
      # before its outcome is safely in Redis.
      #
      # Only `perform` (with middleware) may be interrupted by the shutdown
      # timeout: decoding, settling and counting are shielded from it
      # (Thread.handle_interrupt), so an interrupt never lands between a job's
      # outcome and its acknowledgement. Class lookup and the job itself run
      # inside the configured executor (the Rails reloader), so reloaded code is
      # the code that runs. Only a job class runs (ClassLookup): a payload
      # naming another goes to the dead set as it was fetched, never built.
      # Whatever raises while a failure is recorded leaves the job in the dead
      # set as fetched, never the thread dead (Run::Outcomes#record).
      class JobRunner
        FINAL = %i[success dead dropped cancelled].freeze
        # Outcomes that are no failure: an interruption (IterableJob) or a limiter's
        # "later" (Limiter::OverLimit) reschedules the job as it is; a cancel ends it.
        NOT_FAILED = %i[success interrupted rescheduled cancelled].freeze
        # The shutdown and cancel interrupts wait while a job's outcome is recorded,
        # and are let through while the job itself runs (Processor masks them otherwise).
        # Frozen and compared by identity, Ruby 3.3 takes a mask as it is: a plain
        # Hash is copied at every call, once a job (0.13 µs and an object).
        MASKED = {Deckhand::Shutdown => :never, Deckhand::Cancelled => :never}.compare_by_identity.freeze
        UNMASKED = {Deckhand::Shutdown => :immediate, Deckhand::Cancelled => :immediate}.compare_by_identity.freeze

        # `middleware`: the capsule's own server chain, when it has one.
        # `shield`: a fiber capsule's Fibers::Shield, which marks where its
        # shutdown interrupt may land in place of the thread's interrupt mask.
        def initialize(config:, store:, identity:, fetcher:, stats:, suspects:, middleware: config.server_middleware,
          shield: nil)
          @config = config
          @logger = config.logger
          @middleware = middleware
          @executor = config.executor
          @fetcher = fetcher
          @stats = stats
          @suspects = suspects
          @shield = shield
          @retries = Run::RetryHandler.new(config: config, store: store, identity: identity)
          @gate = Run::JobGate.new(config: config, store: store, fetcher: fetcher, stats: stats)
          @cancels = Run::CancelWatch.new(cancels: stats.cancels, store: store, fetcher: fetcher, gate: @gate, logger: @logger,
            interruptible: shield.nil?, handlers: config.cancel_handlers)
          @classes = ClassLookup.new(cache: !config.reloading)
          @held = Run::ClassHold.new(pause: stats.class_pause, retries: @retries, fetcher: fetcher, store: store, logger: @logger)
          @outcomes = Run::Outcomes.new(config: config, fetcher: fetcher, stats: stats, gate: @gate, retries: @retries, classes: @classes)
          @chunks = Run::ChunkRunner.new(config: config, fetcher: fetcher, stats: stats, gate: @gate, outcomes: @outcomes,
            classes: @classes, suspects: suspects, cancels: @cancels, middleware: middleware, shield: shield)
          @timed = config.auto_balance # the balancer learns from each job's CPU time (docs/auto-balance.md)
          @profiler = Profiler.new(config)
        end

        # Runs on a processor thread, which masks the shutdown interrupt
        # (MASKED) outside this method's call to the job. A job of a chunked
        # class runs with others of its class (Run::ChunkRunner), gathered
        # into `held`, the units the processor holds (nil: a chunk of one).
        def run(unit, held = nil)
          job = @outcomes.decode(unit) or return
          return if @gate.expired(unit, job) || @held.call(unit, job)
          lookup = chunk_lookup(job)
          return @chunks.run(unit, job, held) if lookup.is_a?(Hash)
          recovered = @suspects.count(unit.queue, job["jid"])
          return @cancels.settle(unit, job) if recovered && @cancels.marked?(job["jid"]) # cancelled, then its process died
          tid = Logging::Formatters.tid
          Thread.current[:deckhand_job] = job # logged as class=... jid=...
          @stats.started(tid, unit.queue_name, unit.payload)
          outcome = nil
          cancel = @cancels.enter(job["jid"])
          begin
            @suspects.enter(unit.queue, job["jid"], recovered) if recovered
            started = Monotonic.now
            cpu = Balance::ClassTimes.cpu_ms if @timed
            error = @cancels.interruptible(@shield) { execute(unit, job, cancel, lookup) }
            elapsed = Monotonic.ms_since(started)
            @stats.class_times.record(unit.queue_name, job["wrapped"] || job["class"], elapsed, Balance::ClassTimes.cpu_ms - cpu) if cpu
            cancelled = @cancels.cancelled?(cancel)
            outcome = if error.is_a?(NotAJobClass) then @outcomes.refused(unit, error)
            elsif cancelled then @cancels.settle(unit, job)
            elsif error.is_a?(Deckhand::Interrupted) then @outcomes.handed_back(unit, error)
            elsif error then @outcomes.failure(unit, job, error, elapsed)
            else @outcomes.success(unit, job, elapsed)
            end
          ensure
            # A Shutdown went through: a cancelled job ends cancelled, not handed back.
            outcome = @cancels.settle(unit, job) if cancelled.nil? && @cancels.cancelled?(cancel)
            # A suspect that will run again keeps its count: it may crash a process yet.
            @suspects.leave(unit.queue, job["jid"], forget: FINAL.include?(outcome)) if recovered
            @stats.finished(tid, !NOT_FAILED.include?(outcome))
            Thread.current[:deckhand_job] = nil
          end
        end

        # Settles the job of a worker thread that died holding it (see
        # Processor): a failure like any other, so it retries or dies by its own
        # rules, never left in flight. A job whose outcome the dead thread
        # already wrote is only counted settled: nothing is recorded twice. Never
        # raises: when even recording the failure fails, the job goes to the
        # dead set with its raw bytes and the reason.
        def abandoned(unit, error) = Thread.handle_interrupt(MASKED) { @outcomes.abandoned(unit, error) }

        private

        # The chunk options of the job's class, nil when it runs alone, or the
        # error its class lookup raised: that error is the job's failure,
        # raised where the job would have run (a failed autoload is not
        # tried again on JRuby, so a second lookup would tell another cause).
        def chunk_lookup(job)
          @chunks.chunked?(job)
        rescue Deckhand::Shutdown
          raise
        rescue Exception => e # rubocop:disable Lint/RescueException -- whatever the lookup raised is the job's error
          e
        end

        # The job's error, or nil when it succeeded. A job with a profile
        # token runs under the profiler (docs/profiling.md). `lookup`: the
        # error its class lookup already raised, if any.
        def execute(unit, job, cancel, lookup = nil)
          raise lookup if lookup.is_a?(Exception)
          if job["profile"]
            @profiler.call(job) { wrapped_perform(unit, job, cancel) }
          else
            wrapped_perform(unit, job, cancel)
          end
          nil
        rescue Deckhand::Shutdown
          raise
        rescue Exception => e # rubocop:disable Lint/RescueException -- a job's failure is data, whatever its class
          e
        end

        def wrapped_perform(unit, job, cancel) = @executor ? @executor.wrap { perform(unit, job, cancel) } : perform(unit, job, cancel)

        def perform(unit, job, cancel)
          instance = @classes.job_class(job["class"]).new
          instance.jid = job["jid"] if instance.respond_to?(:jid=)
          instance.deckhand_payload = job if instance.respond_to?(:deckhand_payload=)
          @cancels.attach(cancel, instance)
          @gate.starting(job)
          args = @gate.args(job)
          # A chain whose every middleware would only yield for this job
          # (Deckhand's own, for a job that is no tick, batch member or
          # workflow step: Middleware::Chain#passes?) is not built: the job
          # runs as with no middleware, and no instance a job is made.
          if @middleware.passes?(job)
            instance.perform(*args)
          else
            @middleware.invoke(instance, job, unit.queue_name) { instance.perform(*args) }
          end
        end
      end
    end
  end
end
