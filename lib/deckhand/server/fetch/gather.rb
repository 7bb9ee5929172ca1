# frozen_string_literal: true

require_relative "../../monotonic"

module Deckhand
  module Server
    module Fetch
      # A chunk's way into its capsule's fetched jobs (Run::ChunkRunner): the
      # runner that took the first member takes more from the same buffer,
      # each already in the process's in-flight record as any fetched job, and
      # settles each alone, so recovery, hand-back and the acknowledgements
      # cover a chunk's members as they cover any job. While a chunk is
      # gathered and run it reserves the room for its members, so fetches
      # grow to bring them and the capsule's other threads are still fed. A
      # job of another class goes back to the buffer for the other threads.
      # An auto-balanced capsule (its buffer caps queues by running jobs)
      # gathers nothing: its chunks hold one job.
      #
      #   gather = Gather.new(buffer, planner)
      #   gather.reserve(999)           # a chunk of up to 1,000 started
      #   unit = gather.next(0.5)       # a fetched job within 0.5 s, or nil
      #   gather.give_back(unit)        # not of the chunk's class
      #   gather.reserve(-999)          # its members settled
      class Gather
        SLICE = 0.05
        def initialize(buffer, planner)
          @buffer = buffer
          @planner = planner
        end

        def reserve(count)
          @planner.room(count) if @buffer && !count.zero?
        end

        # The next fetched job, waiting up to `timeout` seconds (none: only
        # one waiting now); nil when none came, or the capsule went quiet
        # (looked at every SLICE, so a stop never waits for a long `wait`).
        # An empty buffer wakes the fetch loop.
        def next(timeout)
          deadline = Monotonic.now + [timeout, 0].max
          loop do
            return nil if @buffer.nil? || @planner.quiet? || @buffer.closed?
            @planner.wake if @buffer.empty?
            unit = @buffer.pop(timeout: (deadline - Monotonic.now).clamp(0, SLICE))
            @planner.wake if @buffer.empty?
            return unit if unit || Monotonic.now >= deadline
          end
        end

        def give_back(unit) = @buffer.push(unit)
      end
    end
  end
end
