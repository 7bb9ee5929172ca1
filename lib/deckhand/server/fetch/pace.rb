# frozen_string_literal: true

module Deckhand
  module Server
    module Fetch
      # How many jobs a capsule may hold beyond its running ones: at least
      # `prefetch` × threads, and as many as it will start within `window` seconds
      # at its current pace. Fast jobs then travel in large batches (few round
      # trips, little Redis CPU per job) while slow jobs are fetched a few at a
      # time, so one busy process never hoards work other processes could start.
      # The window stretches to four fetch round trips when Redis is far away:
      # with one fetch under way at a time, a window shorter than two round trips
      # would leave threads waiting for every batch.
      #
      # It also stretches to one time slice of Ruby's global lock (SLICE) while
      # the capsule's threads run dry before each fetch. Short jobs that never
      # wait on I/O keep the lock from the fetcher thread for up to a slice
      # (100 ms on CRuby), so a fetch asked for at half the window goes out
      # only once every thread has found the buffer empty and gone to sleep;
      # each batch then costs every thread a sleep and a wake-up. With a slice
      # of work per batch that happens ten times less often. Acknowledgements
      # do not wait for those fetches (Fetcher sends them within the window),
      # so a crash re-runs no more finished jobs. Once fetches arrive in time,
      # the window is back to its setting: slow and I/O-bound jobs are never
      # held longer.
      #
      #   pace = Pace.new(concurrency: 10, prefetch: 0.0, window: 0.01)
      #   pace.starved = true  # the threads had run dry when this fetch went out
      #   pace.ahead           # => jobs to hold beyond the running ones
      class Pace
        MAX_AHEAD = 1_000
        SAMPLE = 0.05 # seconds between rate measurements
        SLICE = 0.1 # seconds: CRuby's thread time slice (TIME_QUANTUM)

        def initialize(concurrency:, prefetch:, window:)
          @floor = (concurrency * prefetch).ceil
          @window = window
          @completed = 0
          @rate = 0.0
          @sampled_at = now
          @ahead = @floor
          @round_trip = 0.0
          @starved = false
        end

        # Whether threads were waiting for work when a fetch went out; the
        # fetcher tells, under its lock, before the fetch.
        attr_writer :starved

        # Records how long a fetch took (seconds); the caller holds no lock.
        def round_trip(seconds)
          @round_trip = @round_trip.zero? ? seconds : (@round_trip * 0.8) + (seconds * 0.2)
        end

        # Counts `count` finished jobs; the caller holds the fetcher's lock.
        def completed(count = 1) = @completed += count

        # Jobs to hold beyond the running ones.
        def ahead
          elapsed = now - @sampled_at
          return @ahead if elapsed < SAMPLE
          current = @completed / elapsed
          @rate = (@rate.zero? || current > @rate) ? current : (@rate * 0.7) + (current * 0.3)
          @completed = 0
          @sampled_at += elapsed
          window = [@window, 4 * @round_trip, (@starved ? SLICE : 0.0)].max
          @ahead = (@rate * window).floor.clamp(@floor, [MAX_AHEAD, @floor].max)
        end

        private

        def now = Monotonic.now
      end
    end
  end
end
