# frozen_string_literal: true

module Deckhand
  module Server
    # What this process is doing, kept in memory and written to Redis by the
    # heartbeat: counters since the last flush, and the job each thread runs.
    # Nothing here touches Redis per job.
    class Stats
      Running = Struct.new(:queue, :payload, :run_at)

      def initialize
        @lock = Mutex.new
        @processed = 0
        @failed = 0
        @running = {}
      end

      def started(tid, queue, payload)
        @lock.synchronize { @running[tid] = Running.new(queue, payload, Time.now.to_i) }
      end

      def finished(tid, failed)
        @lock.synchronize do
          @running.delete(tid)
          @processed += 1
          @failed += 1 if failed
        end
      end

      def busy = @lock.synchronize { @running.size }

      def running = @lock.synchronize { @running.dup }

      # Returns and zeroes the counters; give them back with #restore if the flush fails.
      def take
        @lock.synchronize do
          counts = [@processed, @failed]
          @processed = @failed = 0
          counts
        end
      end

      def restore(processed, failed)
        @lock.synchronize do
          @processed += processed
          @failed += failed
        end
      end
    end
  end
end
