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
    # - retries exhausted   deckhand_retries_exhausted, then the dead set (unless
    #                       dead: false), then the death handlers
    #
    # The fields written (retry_count, error_class, error_message, failed_at,
    # retried_at, error_backtrace) are Sidekiq's, so its tools read them.
    #
    # #failed returns what became of the job: :retry, :dead or :dropped.
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
        return exhausted(unit, job, klass, error) if count >= max || expired?(job)

        delay = custom_delay(klass, count, error, job)
        case delay
        when :discard then discard(unit, job, "deckhand_retry_in returned :discard")
        when :kill then exhausted(unit, job, klass, error)
        else
          delay = default_delay(count) unless delay.is_a?(Numeric)
          at = ::Process.clock_gettime(::Process::CLOCK_REALTIME) + delay
          payload = JSON.generate(job)
          write(unit) { |settle| settle.retry(unit.place, at: at, payload: payload) }
          :retry
        end
      end

      # To the schedule set, due at `at` (a job over a limiter's limit, see
      # Server::OverLimit), written with its mark like any outcome.
      def reschedule(unit, job, at:)
        payload = JSON.generate(job)
        write(unit) { |settle| settle.reschedule(unit.place, at: at, payload: payload) }
      end

      # An entry that is not a job: kept, raw bytes and all, in the dead set.
      def corrupt(unit, reason)
        now = Payload.now(@config.timestamps)
        entry = {
          "class" => "Deckhand::CorruptPayload", "args" => [], "queue" => unit.queue,
          "jid" => Payload.jid, "retry" => false, "created_at" => now, "failed_at" => now,
          "error_class" => "Deckhand::CorruptPayload", "error_message" => reason,
          "raw" => [unit.payload].pack("m0"), "raw_encoding" => "base64"
        }
        bury(unit, JSON.generate(entry))
        :dead
      end

      # A job that stopped early to resume later (Deckhand::Interrupted): its
      # payload unchanged, due now in the schedule, written with its mark.
      def resume(unit)
        now = ::Process.clock_gettime(::Process::CLOCK_REALTIME)
        write(unit) { |settle| settle.reschedule(unit.place, at: now, payload: unit.payload) }
      end

      def default_delay(count) = (count**4) + 15 + (rand(10) * (count + 1))

      private

      def record_failure(job, unit, error, now)
        job["queue"] = job["retry_queue"] || unit.queue
        job["error_message"] = error.message.to_s.scrub[0, MAX_MESSAGE]
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

      def backtrace_lines(option, error)
        trace = error.backtrace or return nil
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
        block.call(count, error, job)
      rescue => e
        @logger.error("#{klass}.deckhand_retry_in raised #{e.class}: #{e.message}; using the default backoff")
        nil
      end

      def exhausted(unit, job, klass, error)
        hook = klass.respond_to?(:deckhand_retries_exhausted) && klass.deckhand_retries_exhausted
        call_safely("deckhand_retries_exhausted") { hook.call(job, error) } if hook
        outcome = if job["dead"] == false
          discard(unit, job, "retries exhausted and dead: false")
        else
          bury(unit, JSON.generate(job), job)
          @logger.warn("dead: retries exhausted, moved to the dead set")
          :dead
        end
        @config.death_handlers.each { |handler| call_safely("death handler") { handler.call(job, error) } }
        outcome
      end

      def discard(unit, job, why)
        @logger.info("discarded (#{why})")
        write(unit) { |settle| settle.drop(unit.place, unlock: lock(unit, job)) }
        :dropped
      end

      # The unique lock that goes with the job's outcome (Store::UniqueLocks.within).
      def lock(unit, job) = Store::UniqueLocks.within(@store, Unique.held_by(job, @store.keys), unit.queue)

      # A death releases the job's unique lock (`job`: nil for a corrupt entry).
      def bury(unit, payload, job = nil)
        now = ::Process.clock_gettime(::Process::CLOCK_REALTIME)
        write(unit) do |settle|
          settle.bury(unit.place, payload: payload, now: now,
            timeout: @config.dead_timeout, max_jobs: @config.dead_max_jobs, unlock: job && lock(unit, job))
        end
      end

      # The outcome and the job's mark, atomically. While Redis fails the
      # thread waits and tries again (logging as Outage says): the job stays
      # in flight, never lost. Only the wait may be cut short by the shutdown
      # interrupt, never a write under way.
      def write(unit)
        settle = (@settle[unit.queue] ||= Store::Scripts::Settle.new(@store, identity: @identity, queue: unit.queue))
        outage = nil
        begin
          written = yield settle
          @logger.warn("its lot was recovered by another process meanwhile; the outcome is left to that run") unless written
          outage&.over
        rescue Deckhand::RedisError => e
          outage ||= Outage.new(@logger, "recording the outcome of a job from queue #{unit.queue}")
          delay = outage.failed(e)
          Thread.handle_interrupt(Deckhand::Shutdown => :immediate) { sleep delay }
          retry
        end
      end

      def call_safely(what)
        yield
      rescue => e
        @logger.error("#{what} raised #{e.class}: #{e.message}")
      end
    end
  end
end
