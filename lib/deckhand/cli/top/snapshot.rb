# frozen_string_literal: true

module Deckhand
  class CLI
    module Top
      # What one frame of `deckhand top` shows, read from Redis through the
      # data API in a few round trips: the totals, every queue, every process,
      # the throughput since the previous snapshot, and each queue's throttle
      # (the servers publish theirs) and whether a live process works it; in
      # cluster mode, which primary holds each queue (each partition of a
      # partitioned one) and each primary's share.
      #
      #   first = Snapshot.read(API.new)
      #   later = Snapshot.read(API.new, previous: first)
      #   later.throughput   # => jobs per second between the two
      class Snapshot
        attr_reader :stats, :queues, :processes, :at, :throughput, :throttles, :worked, :placement

        def self.read(api, previous: nil)
          processes = api.processes
          snapshot = new(api.stats, api.queues, processes.to_a, Monotonic.now, previous)
          placement = api.placement
          snapshot.placed(placement) if placement.cluster?
          snapshot.limits(api.throttles(processes: processes).to_h { |t| [t.queue, t] }, processes.worked_queues)
        end

        # Where `queue`'s lists are in cluster mode, most first: {"host:port"
        # => how many}; one list for a queue that is not partitioned, {} in
        # plain mode.
        def spread_of(queue) = @spreads.fetch(queue) { {} }

        # API::Placement, in cluster mode.
        def placed(placement)
          @placement = placement
          @spreads = @queues.to_h do |queue|
            lists = queue.partitioned? ? queue.partitions.map(&:name) : [queue.name]
            [queue.name, placement.spread(lists)]
          end
          self
        end

        def initialize(stats, queues, processes, at, previous)
          @throttles = {}
          @worked = nil
          @placement = nil
          @spreads = {}
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
