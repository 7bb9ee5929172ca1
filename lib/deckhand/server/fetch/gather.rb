# frozen_string_literal: true

require_relative "../../monotonic"
require_relative "open_chunk"

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
      #   open = gather.join_or_open(unit, job, 999)  # a chunk of up to 1,000 opened for job's class
      #   gather.reserve(999)
      #   gather.join_or_open(unit2, other, 999)  # => nil, in another thread: a job of the class joined it
      #   gather.joined(open)           # => [[unit, job]], the jobs joined since the last call
      #   unit = gather.next(0.5, open) # a fetched job within 0.5 s, JOINED, or nil (none, or the chunk is full)
      #   gather.claim(open)            # => true: room for the unit it took
      #   gather.give_back(unit)        # not of the chunk's class, or no room
      #   gather.close(job, open)       # => the last jobs joined; no more join
      #   gather.reserve(-999)          # its members settled
      class Gather
        SLICE = 0.05
        # How often a gathering thread looks for jobs joined to its chunk
        # while it waits for the buffer.
        JOIN_SLICE = 0.01
        # What #next returns when jobs joined the chunk meanwhile.
        JOINED = Object.new.freeze

        def initialize(buffer, planner)
          @buffer = buffer
          @planner = planner
          @lock = Mutex.new
          # "class" => {"wrapped" (nil unless Active Job's) => its OpenChunk}:
          # looked up without building a key a job.
          @open = Hash.new { |by_class, name| by_class[name] = {} }
        end

        # The chunk of `job`'s class gathers, with `left` slots: other
        # threads join their jobs of the class to it (#join) until #close.
        def open(job, left)
          chunk = OpenChunk.new(left)
          @lock.synchronize { @open[job["class"]][job["wrapped"]] = chunk } if @buffer
          chunk
        end

        # Joins a fetched job (already decoded and let through as the
        # processor would start it) to the open chunk of its class, or, when
        # none gathers with room, opens one for it with `left` slots. One
        # step under the lock, so two threads never both open a chunk of one
        # class (the second would hide the first from every join, and the
        # first would wait out its `wait` short of its size). Returns nil
        # when the job joined, else the chunk it opened.
        def join_or_open(unit, job, left)
          return OpenChunk.new(left) unless @buffer
          @lock.synchronize do
            open = @open[job["class"]]
            next nil if open[job["wrapped"]]&.add([unit, job])
            open[job["wrapped"]] = OpenChunk.new(left)
          end
        end

        def joined(chunk) = @lock.synchronize { chunk.take }

        def claim(chunk) = @lock.synchronize { chunk.claim }

        def left(chunk) = @lock.synchronize { chunk.left }

        # No more joins; returns the jobs joined since the last #joined.
        def close(job, chunk)
          @lock.synchronize do
            open = @open[job["class"]]
            open.delete(job["wrapped"]) if open[job["wrapped"]].equal?(chunk)
            chunk.close
          end
        end

        def reserve(count)
          @planner.room(count) if @buffer && !count.zero?
        end

        # The next fetched job, waiting up to `timeout` seconds (none: only
        # one waiting now); JOINED when jobs joined `chunk` meanwhile; nil
        # when none came, `chunk` has no slot left, or the capsule went quiet
        # (looked at every SLICE, so a stop never waits for a long `wait`).
        # An empty buffer wakes the fetch loop.
        def next(timeout, chunk = nil)
          deadline = nil
          slice = chunk ? JOIN_SLICE : SLICE
          loop do
            return nil if @buffer.nil? || @planner.quiet? || @buffer.closed?
            if chunk
              state = @lock.synchronize { chunk.left.zero? ? :full : chunk.joined? }
              return nil if state == :full
              return JOINED if state
            end
            unless deadline # a job waiting now is taken without reading the clock (a backlog's every member)
              unit = @buffer.pop_now
              @planner.wake if @buffer.empty?
              return unit if unit
              deadline = Monotonic.now + [timeout, 0].max
            end
            @planner.wake if @buffer.empty?
            unit = @buffer.pop(timeout: (deadline - Monotonic.now).clamp(0, slice))
            @planner.wake if @buffer.empty?
            return unit if unit || Monotonic.now >= deadline
          end
        end

        def give_back(unit) = @buffer.push(unit)
      end
    end
  end
end
