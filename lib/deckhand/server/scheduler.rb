# frozen_string_literal: true

module Deckhand
  module Server
    # Moves due jobs from the schedule and retry sets to their queues with one Lua
    # script per poll (atomic: no job is ever out of both). Between polls it
    # sleeps a jittered interval scaled by the number of live processes, so the
    # fleet polls Redis about as often as one process would, and wakes early
    # when the next scheduled job is due sooner.
    class Scheduler
      BATCH = 100

      def initialize(config:, store:, process_count:)
        @config = config
        @store = store
        @logger = config.logger
        @process_count = process_count
        @sleeper = Sleeper.new
      end

      def start
        @thread = Thread.new do
          Thread.current.name = "deckhand-scheduler"
          run
        end
        self
      end

      def stop
        @sleeper.stop
        @thread&.join(5)
      end

      # Runs one poll; returns [moved, corrupt, earliest due score or nil].
      def enqueue_due
        now = ::Process.clock_gettime(::Process::CLOCK_REALTIME)
        keys = [Store::Keys::SCHEDULE, Store::Keys::RETRY, Store::Keys::DEAD]
        moved, corrupt, earliest = @store.script(:schedule, keys, [now.round(3), BATCH, Payload.now(@config.timestamps)])
        @logger.error("#{corrupt} scheduled entries were not valid jobs; moved to the dead set as they were") if corrupt.positive?
        [moved, corrupt, earliest&.to_f]
      end

      private

      def run
        failures = 0
        until @sleeper.stopped?
          begin
            moved, corrupt, earliest = enqueue_due
            failures = 0
            next if moved + corrupt >= BATCH # more are due right now
            pause(interval(earliest))
          rescue Deckhand::RedisError => e
            @logger.warn("scheduler cannot reach Redis (#{e.message}); retrying") if failures.zero?
            failures += 1
            pause([failures, 5].min)
          end
        end
      end

      def interval(earliest)
        average = @config.scheduler_interval * [@process_count.call, 1].max
        wait = average * (0.5 + rand)
        return wait unless earliest
        (earliest - ::Process.clock_gettime(::Process::CLOCK_REALTIME)).clamp(0.0, wait)
      end

      def pause(seconds) = @sleeper.sleep(seconds)
    end
  end
end
