# frozen_string_literal: true

module Deckhand
  class CLI
    module Top
      # What one frame of `deckhand top` shows, read from Redis through the
      # data API in a few round trips: the totals, every queue, every process,
      # and the throughput since the previous snapshot.
      #
      #   first = Snapshot.read(API.new)
      #   later = Snapshot.read(API.new, previous: first)
      #   later.throughput   # => jobs per second between the two
      class Snapshot
        attr_reader :stats, :queues, :processes, :at, :throughput

        def self.read(api, previous: nil)
          new(api.stats, api.queues, api.processes.to_a, ::Process.clock_gettime(::Process::CLOCK_MONOTONIC), previous)
        end

        def initialize(stats, queues, processes, at, previous)
          @stats = stats
          @queues = queues.sort_by { |queue| [-queue.size, queue.name] }
          @processes = processes.sort_by { |process| [process.hostname, process.pid.to_i] }
          @at = at
          @throughput = previous && rate(previous)
        end

        private

        def rate(previous)
          elapsed = @at - previous.at
          elapsed.positive? ? [(@stats.processed - previous.stats.processed) / elapsed, 0].max : nil
        end
      end
    end
  end
end
