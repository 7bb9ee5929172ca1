# frozen_string_literal: true

require_relative "retry_handler"
require_relative "job_gate"
require_relative "class_hold"
require_relative "over_limit_handler"
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
      # set as fetched, never the thread dead (#record).
      class JobRunner
        FINAL = %i[success dead dropped cancelled].freeze
        # Outcomes that are no failure: an interruption (IterableJob) or a limiter's
        # "later" (Limiter::OverLimit) reschedules the job as it is; a cancel ends it.
        NOT_FAILED = %i[success interrupted rescheduled cancelled].freeze
        # The shutdown and cancel interrupts wait while a job's outcome is recorded,
        # and are let through while the job itself runs (Processor masks them otherwise).
        MASKED = {Deckhand::Shutdown => :never, Deckhand::Cancelled => :never}.freeze
        UNMASKED = {Deckhand::Shutdown => :immediate, Deckhand::Cancelled => :immediate}.freeze

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
          @over_limit = Run::OverLimitHandler.new(retries: @retries, logger: @logger)
          @held = Run::ClassHold.new(pause: stats.class_pause, retries: @retries, fetcher: fetcher, store: store, logger: @logger)
          @cancels = Run::CancelWatch.new(cancels: stats.cancels, store: store, fetcher: fetcher, gate: @gate, logger: @logger,
            interruptible: shield.nil?)
          @classes = ClassLookup.new(cache: !config.reloading)
          @timed = config.auto_balance # the balancer learns from each job's CPU time (docs/auto-balance.md)
          @profiler = Profiler.new(config)
          @lines = config.job_log_lines
        end

        # Runs on a processor thread, which masks the shutdown interrupt
        # (MASKED) outside this method's call to the job.
        def run(unit)
          job = decode(unit) or return
          return if @gate.expired(unit, job) || @held.call(unit, job)
          recovered = @suspects.count(unit.queue, job["jid"])
          return @cancels.settle(unit, job) if recovered && @cancels.marked?(job["jid"]) # cancelled, then its process died
          tid = Logging::Formatters.tid
          Thread.current[:deckhand_job] = job # logged as class=... jid=...
          @stats.started(tid, unit.queue_name, unit.payload)
          outcome = nil
          cancel = @cancels.enter(job["jid"])
          begin
            @suspects.enter(unit.queue, job["jid"], recovered) if recovered
            started = now
            cpu = Balance::ClassTimes.cpu_ms if @timed
            error = @cancels.interruptible(@shield) { execute(unit, job, cancel) }
            elapsed = ms_since(started)
            @stats.class_times.record(unit.queue_name, job["wrapped"] || job["class"], elapsed, Balance::ClassTimes.cpu_ms - cpu) if cpu
            cancelled = @cancels.cancelled?(cancel)
            outcome = if error.is_a?(NotAJobClass) then refused(unit, error)
            elsif cancelled then @cancels.settle(unit, job)
            elsif error.is_a?(Deckhand::Interrupted) then handed_back(unit, job, error)
            elsif error then failure(unit, job, error, elapsed)
            else success(unit, job, elapsed)
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
        def abandoned(unit, error)
          Thread.handle_interrupt(MASKED) do
            settle_abandoned(unit, error) unless unit.recorded
            @fetcher.done(unit, marked: true)
          end
        end

        private

        # The job's error, or nil when it succeeded. A job with a profile
        # token runs under the profiler (docs/profiling.md).
        def execute(unit, job, cancel)
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
          if @middleware.empty?
            instance.perform(*args)
          else
            @middleware.invoke(instance, job, unit.queue_name) { instance.perform(*args) }
          end
        end

        def success(unit, job, elapsed)
          @fetcher.done(unit, unlock: @gate.unlock(job, unit.queue))
          @stats.metrics.record(job["wrapped"] || job["class"], elapsed, false)
          @logger.info("done #{elapsed.round(1)}ms") if @lines && @logger.info?
          :success
        end

        def failure(unit, job, error, elapsed)
          error = @gate.redact(job, error)
          @stats.metrics.record(job["wrapped"] || job["class"], elapsed, true)
          outcome = record(unit, job, error, elapsed)
          @fetcher.done(unit, marked: true)
          notify_error(error, job) if unit.recorded == :written && outcome != :rescheduled
          outcome
        end

        # What became of the failed job. Whatever raises on the way (a bug on
        # the failure path, an object in the payload no one can write) ends
        # neither the thread nor the job: it goes to the dead set as it was
        # fetched, unless its outcome is written already.
        def record(unit, job, error, elapsed)
          rescheduled = @over_limit.call(unit, job, error) and return rescheduled # a limiter said "later": not a failure
          @logger.warn("fail #{elapsed.round(1)}ms: #{error.class}: #{safe_message(error)}") if @lines && @logger.warn?
          @retries.failed(unit, job, @classes.retry_class(job["class"]), error)
        rescue Deckhand::Shutdown
          raise
        rescue Exception => e # rubocop:disable Lint/RescueException -- the outcome must be written, the thread go on
          last_resort(unit, e, error.class.name)
        end

        # After recording a failure raised `problem`: nothing more when the
        # outcome was written, else the job to the dead set as fetched.
        def last_resort(unit, problem, error_class)
          problem = "#{problem.class}: #{safe_message(problem)}"
          if unit.recorded
            @logger.error("after its failure was recorded, #{problem}")
            return nil
          end
          @logger.error("recording the failure raised #{problem}; the job goes to the dead set as it was fetched")
          @retries.corrupt(unit, "its failure could not be recorded (#{problem})", error_class: error_class)
        end

        # An iterable job stopped between steps (IterableJob): back to its queue
        # as it was, through the schedule (due now), with no retry consumed.
        def handed_back(unit, job, error)
          @logger.info(error.message) if @logger.info?
          @retries.resume(unit)
          @fetcher.done(unit, marked: true)
          :interrupted
        end

        # A payload whose class is no job (JobClasses): never built, kept in
        # the dead set as it was fetched, like a corrupt payload.
        def refused(unit, error)
          @logger.error("#{error.message}; moved to the dead set with its raw bytes")
          @retries.corrupt(unit, error.message, error_class: NotAJobClass.name)
          @fetcher.done(unit, marked: true)
          :dead
        end

        def settle_abandoned(unit, error)
          job = decode(unit) or return
          cause = error.is_a?(ThreadDied) ? error : ThreadDied.new("#{error.class}: #{safe_message(error)}")
          died = ThreadDied.new("the worker thread running this job ended before recording its outcome (#{cause.message})")
          @logger.error("#{job["class"]} jid=#{job["jid"]}: #{died.message}; retrying it as a failure")
          @retries.failed(unit, job, @classes.retry_class(job["class"]), died)
        rescue Deckhand::Shutdown
          raise
        rescue Exception => e # rubocop:disable Lint/RescueException -- the last resort must settle the job
          last_resort(unit, e, ThreadDied.name)
        end

        def decode(unit)
          Payload.decode(unit.payload)
        rescue Payload::Decoder::Invalid => e
          @logger.error("corrupt payload in queue #{unit.queue}: #{e.message}; moved to the dead set with its raw bytes")
          @retries.corrupt(unit, e.message)
          @fetcher.done(unit, marked: true)
          nil
        end

        # As UTF-8, so a log line never raises on it.
        def safe_message(error)
          FailedPayload.utf8(error.message)
        rescue Exception # rubocop:disable Lint/RescueException -- an error whose message raises still gets reported
          "(its message could not be read)"
        end

        def now = Monotonic.now

        # Unrounded, so the metrics of sub-millisecond jobs do not all read 0.
        def ms_since(started) = (now - started) * 1000.0

        # Once per recorded failure. A handler's error, whatever its class, is
        # logged: the job's outcome stands and the thread goes on.
        def notify_error(error, job)
          @config.error_handlers.each do |handler|
            handler.call(error, {"context" => "job", "job" => job})
          rescue Deckhand::AppError => e # a handler's bug must not unsettle a job
            @logger.error("error handler raised #{e.class}: #{safe_message(e)}")
          end
        end
      end
    end
  end
end
