# frozen_string_literal: true

require "json"

module Deckhand
  module Server
    # Decides what happens to a failed job and writes it, with the job's mark
    # in its lot, in one atomic step (store/scripts/settle.lua):
    #
    # - retry: false        dropped (Sidekiq's rule), the failure logged
    # - retries left        to the retry set, due after deckhand_retry_in or the
    #                       default backoff (count**4 + 15 s, plus jitter)
    # - retries exhausted   deckhand_retries_exhausted (dropped if it returns
    #                       :discard), then the dead set (unless dead: false),
    #                       then the death handlers
    #
    # The fields written (retry_count, error_class, error_message, failed_at,
    # retried_at, error_backtrace) are Sidekiq's, so its tools read them.
    #
    # #failed returns what became of the job: :retry, :dead or :dropped.
    # Each write leaves its result on the unit (UnitOfWork#recorded), so a
    # thread that dies after the outcome was written settles nothing twice;
    # handlers (death handlers, deckhand_retries_exhausted, deckhand_retry_in)
    # may raise any exception but the shutdown: it is logged, and the
    # outcome stands.
    class RetryHandler
      MAX_MESSAGE = 10_000

      def initialize(config:, store:, identity:)
        @config = config
        @store = store
        @identity = identity
        @logger = config.logger
        @settle = {}
      end

      def failed(unit, job, klass, error)
        retry_option = job["retry"]
        retry_option = (klass.respond_to?(:deckhand_options) ? klass.deckhand_options["retry"] : true) if retry_option.nil?
        return discard(unit, job, "retry is disabled") unless retry_option

        now = Payload.now(@config.timestamps)
        record_failure(job, unit, error, now)
        max = (retry_option == true) ? @config.max_retries : retry_option.to_i
        count = job["retry_count"]
        # retry_for, when set, replaces the count (Sidekiq 8's rule).
        over = job["retry_for"].is_a?(Numeric) ? expired?(job) : count >= max
        return exhausted(unit, job, klass, error) if over

        strategy, delay = delay_for(klass, count, error, job)
        case strategy
        when :discard then discard(unit, job, "deckhand_retry_in returned :discard")
        when :kill then exhausted(unit, job, klass, error)
        else
          at = ::Process.clock_gettime(::Process::CLOCK_REALTIME) + delay
          payload = JSON.generate(job)
          write(unit) { |settle| settle.retry(unit.place, at: at, payload: payload) }
          :retry
        end
      end

      # To the schedule set, due at `at` (a job over a limiter's limit, see
      # Server::OverLimitHandler), written with its mark like any outcome.
      def reschedule(unit, job, at:)
        payload = JSON.generate(job)
        write(unit) { |settle| settle.reschedule(unit.place, at: at, payload: payload) }
      end

      # An entry that is not a job: kept, raw bytes and all, in the dead set.
      def corrupt(unit, reason, error_class: "Deckhand::CorruptPayload")
        now = Payload.now(@config.timestamps)
        entry = {
          "class" => "Deckhand::CorruptPayload", "args" => [], "queue" => Store::Layout::PartitionNames.base(unit.queue),
          "jid" => Payload.jid, "retry" => false, "created_at" => now, "failed_at" => now,
          "error_class" => error_class, "error_message" => reason,
          "raw" => [unit.payload].pack("m0"), "raw_encoding" => "base64"
        }
        bury(unit, JSON.generate(entry))
        :dead
      end

      # A job whose failure could not be recorded (a bug on the failure path):
      # kept, raw bytes and all, in the dead set, with the reason.
      def unsettled(unit, reason) = corrupt(unit, reason, error_class: "Deckhand::ThreadDied")

      # A job that stopped early to resume later (Deckhand::Interrupted): its
      # payload unchanged, due now in the schedule, written with its mark.
      def resume(unit)
        now = ::Process.clock_gettime(::Process::CLOCK_REALTIME)
        write(unit) { |settle| settle.reschedule(unit.place, at: now, payload: unit.payload) }
      end

      def default_delay(count) = (count**4) + 15 + (rand(10) * (count + 1))

      # What the class's deckhand_retry_in makes of the `count`th retry:
      # [:discard, nil], [:kill, nil] or [:default, seconds] (its number, a
      # Duration as seconds, or the default backoff when it gives none).
      def delay_for(klass, count, error, job)
        delay = custom_delay(klass, count, error, job)
        return [delay, nil] if delay == :discard || delay == :kill
        return [:default, default_delay(count)] unless delay.is_a?(Numeric)
        [:default, (delay.is_a?(Integer) || delay.is_a?(Float)) ? delay : delay.to_f]
      end

      private

      def record_failure(job, unit, error, now)
        job["queue"] = job["retry_queue"] || Store::Layout::PartitionNames.base(unit.queue)
        job["error_message"] = message_of(error)
        job["error_class"] = error.class.name
        if job["retry_count"].is_a?(Integer)
          job["retried_at"] = now
          job["retry_count"] += 1
        else
          job["failed_at"] = now
          job["retry_count"] = 0
        end
        lines = backtrace_lines(job["backtrace"], error)
        job["error_backtrace"] = Payload::Backtrace.compress(lines) if lines
        job.delete("enqueued_at") # the scheduler stamps a fresh one when the retry is due
      end

      # As UTF-8 (bytes that are not are replaced), and never the reason a
      # failure goes unrecorded: a message that raises is replaced by a note.
      def message_of(error)
        text = error.message.to_s.dup.force_encoding(Encoding::UTF_8).scrub
        text[0, MAX_MESSAGE]
      rescue => e
        "(the error's message could not be read: #{e.class})"
      end

      def backtrace_lines(option, error)
        trace = error.backtrace or return nil
        cleaner = @config.backtrace_cleaner
        trace = (cleaner && call_safely("backtrace_cleaner (the backtrace is kept as it was)") { cleaner.call(trace) }) || trace
        limit = case option
        when true then trace.size
        when Integer then option
        when false then 0
        else @config.backtrace_lines
        end
        limit.positive? ? trace.first(limit) : nil
      end

      def expired?(job)
        limit = job["retry_for"]
        return false unless limit.is_a?(Numeric)
        failed_at = Payload.to_epoch(job["failed_at"]) or return false
        failed_at + limit < ::Process.clock_gettime(::Process::CLOCK_REALTIME)
      end

      def custom_delay(klass, count, error, job)
        block = klass.respond_to?(:deckhand_retry_in) && klass.deckhand_retry_in
        return nil unless block
        # Named as the application wrote it (drop-in mode's classes answer sidekiq_retry_in).
        rule = klass.respond_to?(:sidekiq_retry_in) ? "sidekiq_retry_in" : "deckhand_retry_in"
        call_safely("Failure scheduling retry using the defined `#{rule}` in #{klass}, falling back to the default backoff: the block") do
          block.call(count, error, job)
        end
      end

      def exhausted(unit, job, klass, error)
        hook = klass.respond_to?(:deckhand_retries_exhausted) && klass.deckhand_retries_exhausted
        verdict = call_safely("deckhand_retries_exhausted") { hook.call(job, error) } if hook
        # :discard drops the job: no dead set entry, no death handlers (Sidekiq's rule).
        return discard(unit, job, "deckhand_retries_exhausted returned :discard") if verdict == :discard
        outcome = if job["dead"] == false
          discard(unit, job, "retries exhausted and dead: false")
        else
          bury(unit, JSON.generate(job), job)
          @logger.warn("dead: retries exhausted, moved to the dead set") if unit.recorded == :written
          :dead
        end
        # Once per death: not again for a write repeated after a lost reply.
        if unit.recorded == :written
          @config.death_handlers.each { |handler| call_safely("death handler") { handler.call(job, error) } }
        end
        outcome
      end

      def discard(unit, job, why)
        @logger.info("discarded (#{why})")
        write(unit) { |settle| settle.drop(unit.place, unlock: lock(unit, job)) }
        :dropped
      end

      # The unique lock that goes with the job's outcome (Store::UniqueLocks.within).
      def lock(unit, job) = Store::UniqueLocks.within(@store, Unique.held_by(job, @store.layout), unit.queue)

      # A death releases the job's unique lock (`job`: nil for a corrupt entry).
      def bury(unit, payload, job = nil)
        now = ::Process.clock_gettime(::Process::CLOCK_REALTIME)
        write(unit) do |settle|
          settle.bury(unit.place, payload: payload, now: now,
            timeout: @config.dead_timeout, max_jobs: @config.dead_max_jobs, unlock: job && lock(unit, job))
        end
      end

      # The outcome and the job's mark, atomically; the result (Settle's
      # :written, :settled or :gone) is left on the unit. While Redis fails
      # the thread waits and tries again (logging as Outage says): settle.lua
      # writes nothing when it is refused, so the job stays in flight, never
      # lost. Only the wait may be cut short by the shutdown interrupt, never
      # a write under way. A job found settled on a try after a failed one
      # was settled by that try (its reply was lost on the way back): the
      # outcome is this call's, and its handlers run once.
      def write(unit)
        settle = (@settle[unit.queue] ||= Store::Scripts::Settle.new(@store, identity: @identity, queue: unit.queue))
        outage = nil
        begin
          result = yield(settle)
          unit.recorded = (outage && result == :settled) ? :written : result
          outage&.over
          gone(unit) if unit.recorded == :gone
        rescue Deckhand::RedisError => e
          outage ||= Outage.new(@logger, "recording the outcome of a job from queue #{unit.queue}")
          delay = outage.failed(e)
          Thread.handle_interrupt(Deckhand::Shutdown => :immediate) { sleep delay }
          retry
        end
      end

      # The job left this process's in-flight record before its outcome was
      # written. Only the owners registry can say why: a process that is no
      # longer registered was taken for dead and its jobs recovered by another.
      def gone(unit)
        owner = Store::Owners.registered?(@store, @identity)
        why = if owner
          "it is no longer in this process's in-flight record (handed back to its queue)"
        else
          "this process was taken for dead and another recovered its jobs"
        end
        @logger.warn("a job from queue #{unit.queue} failed, but #{why}: it runs again, this outcome is not written")
      rescue Deckhand::RedisError => e
        @logger.warn("a job from queue #{unit.queue} failed, but it is no longer in this process's in-flight record " \
          "(handed back, or recovered by another process; Redis could not say which: #{e.message}): " \
          "it runs again, this outcome is not written")
      end

      # A handler's error, whatever its class (a NotImplementedError is no
      # StandardError), is logged; the shutdown interrupt alone goes through.
      def call_safely(what)
        yield
      rescue Deckhand::AppError => e # a handler's bug must not unsettle a job
        @logger.error("#{what} raised #{e.class}: #{e.message}")
        nil
      end
    end
  end
end
