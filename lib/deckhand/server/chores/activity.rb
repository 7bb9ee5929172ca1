# frozen_string_literal: true

require_relative "../balance/class_times"
require_relative "../run/cancels"
require_relative "../run/class_pause"

module Deckhand
  module Server
    module Chores
      # What this process is doing, kept in memory and written to Redis by the
      # heartbeat: counters since the last flush, and the job each thread runs.
      # Nothing here touches Redis per job.
      class Activity # :nodoc:
        # One per thread, reused for each job it runs (no allocation per job).
        Running = Struct.new(:queue, :payload, :run_at, :busy, :chunk_jids)

        # Per-class execution counts and times, flushed by the heartbeat.
        attr_reader :metrics

        # Per queue and class, wall and CPU time, taken by the balancer (auto_balance).
        attr_reader :class_times

        # The running jobs a cancel may reach (Run::Cancels), read by the heartbeat.
        attr_reader :cancels

        # The job classes paused across the fleet (Run::ClassPause), set by the heartbeat.
        attr_reader :class_pause

        def initialize
          @metrics = Store::Records::ExecutionMetrics::Tally.new
          @class_times = Balance::ClassTimes.new
          @cancels = Run::Cancels.new
          @class_pause = Run::ClassPause.new
          @lock = Mutex.new
          @processed = 0
          @failed = 0
          @expired = 0
          @running = {}
        end

        # chunk: the jids of a chunk's members (the payload is its first's), or nil.
        def started(tid, queue, payload, chunk: nil)
          now = ::Process.clock_gettime(::Process::CLOCK_REALTIME, :second)
          @lock.synchronize do
            slot = (@running[tid] ||= Running.new)
            slot.queue = queue
            slot.payload = payload
            slot.run_at = now
            slot.chunk_jids = chunk
            slot.busy = true
          end
        end

        def finished(tid, failed) = finished_chunk(tid, 1, failed ? 1 : 0)

        # A chunk of `processed` members ended, `failed` of them failures.
        def finished_chunk(tid, processed, failed)
          @lock.synchronize do
            @running[tid].busy = false
            @processed += processed
            @failed += failed
          end
        end

        # A job dropped unstarted because its expires_in passed.
        def expired = @lock.synchronize { @expired += 1 }

        # tid => Running, for the jobs running now (a copy).
        def running = @lock.synchronize { @running.select { |_, slot| slot.busy }.transform_values(&:dup) }

        def busy = running.size

        # Returns and zeroes the counters; give them back with #restore if the flush fails.
        def take
          @lock.synchronize do
            counts = [@processed, @failed, @expired]
            @processed = @failed = @expired = 0
            counts
          end
        end

        def restore(processed, failed, expired = 0)
          @lock.synchronize do
            @processed += processed
            @failed += failed
            @expired += expired
          end
        end
      end
    end
  end
end
