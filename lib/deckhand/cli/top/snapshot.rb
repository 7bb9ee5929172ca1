# frozen_string_literal: true

module Deckhand
  class CLI
    module Top
      # What one frame of `deckhand top` shows, read from Redis through the
      # data API in a few round trips: the totals, every queue, every process,
      # the throughput since the previous snapshot, and each queue's throttle
      # (the servers publish theirs) and whether a live process works it; in
      # cluster mode, which primary holds each queue and each one's share.
      #
      #   first = Snapshot.read(API.new)
      #   later = Snapshot.read(API.new, previous: first)
      #   later.throughput   # => jobs per second between the two
      class Snapshot
        attr_reader :stats, :queues, :processes, :at, :throughput, :throttles, :worked, :placement

        def self.read(api, previous: nil)
          processes = api.processes
          snapshot = new(api.stats, api.queues, processes.to_a, ::Process.clock_gettime(::Process::CLOCK_MONOTONIC), previous)
          placement = api.placement
          snapshot.placed(placement) if placement.cluster?
          snapshot.limits(api.throttles(processes: processes).to_h { |t| [t.queue, t] }, processes.worked_queues)
        end

        # The primary ("host:port") holding `queue` in cluster mode, else nil.
        def primary_of(queue) = @primaries[queue]

        # API::Placement, in cluster mode.
        def placed(placement)
          @placement = placement
          @primaries = placement.primaries.each_with_object({}) { |p, map| p.queues.each { |q| map[q] = p.address } }
          self
        end

        def initialize(stats, queues, processes, at, previous)
          @throttles = {}
          @worked = nil
          @placement = nil
          @primaries = {}
          @stats = stats
          @queues = queues.sort_by { |queue| [-queue.size, queue.name] }
          @processes = processes.sort_by { |process| [process.hostname, process.pid.to_i] }
          @at = at
          @throughput = previous && rate(previous)
        end

        # throttles: queue => API::Throttle; worked: the queues live
        # processes work (nil: unknown, nothing is flagged).
        def limits(throttles, worked)
          @throttles = throttles
          @worked = worked
          self
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
