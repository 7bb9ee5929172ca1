# frozen_string_literal: true

module Deckhand
  module Server
    module Fetch
      # What a capsule's fetch asks for and what its answer becomes: the
      # sources (its unpaused queues in fetch order, each with the id of the
      # lot its jobs would fill, ids from the process's Sequence, and its
      # share of the jobs asked for) and the units of work of the lots the
      # fetch filled.
      #
      # Strict queues give each source the whole limit: the first queue
      # gives all it has, the next the rest. Weighted queues split the limit
      # by weight, so a batch of 100 from "heavy,3" and "light,1" holds about
      # 75 heavy jobs and 25 light ones while both have jobs, as one job at a
      # time picked by weight would; the fetch gives a share a queue cannot
      # fill to the sources in order. The units left after the split go one by
      # one to a queue picked by weight (a fetch of one job picks its queue
      # as Sidekiq does).
      #
      # A partitioned queue's lists (Config::Partitions) are sources of their
      # own, which take turns: every TURN fetches the capsule starts one
      # partition further on (each process from a partition of its own), so
      # it drains every partition, not the first one first. Staying a few
      # fetches on one partition keeps most acknowledgements of a round trip
      # in one slot: in cluster mode each other slot they touch costs a
      # script call of its own.
      #
      # A queue's priority levels (docs/priority.md), which the heartbeat
      # reads (#levels=), are sources of their own in the queue's place: the
      # levels below 0 first, lowest first, then the queue's own list, then
      # the levels above 0. Each takes the queue's share: a weighted queue
      # with jobs at several levels may take more than its share of a fetch.
      #
      #   sources = Sources.new(capsule, sequence: sequence, suspects: suspects)
      #   sources.levels = {"default" => [-5, 3]}
      #   asked = sources.next(paused: [], limit: 20) # => [[queue index, lot id, share, level or nil], ...]
      #   lots = sources.lots(takes, asked)           # => [Lot, ...]
      class Sources
        TURN = 16
        def initialize(capsule, sequence:, suspects:, random: Random.new)
          @capsule = capsule
          @queues = capsule.queues
          @index = @queues.each_with_index.to_h
          @weights = capsule.weights&.then { |weights| @queues.map { |queue| weights.fetch(queue) } }
          @sequence = sequence
          @suspects = suspects
          @random = random
          @groups = @queues.each_index.group_by { |i| Store::Layout::PartitionNames.base(@queues[i]) }
            .values.select { |group| group.size > 1 }
          @turn = random.rand(TURN * 64)
          @levels = NO_LEVELS
        end

        NO_LEVELS = {}.freeze

        # The priority levels of the capsule's queues: {queue name => [level,
        # ...]} (Store::Jobs::PriorityPushes.parse). Queues not named have none.
        def levels=(by_queue)
          levels = @queues.each_index.to_h { |i| [i, by_queue.fetch(@queues[i], []).sort] }.reject { |_, found| found.empty? }
          @levels = levels.empty? ? NO_LEVELS : levels.freeze
        end

        # paused: indexes of the queues paused from the dashboard or API;
        # limit: the jobs this fetch asks for.
        def next(paused:, limit:)
          order = @capsule.fetch_order.map { |queue| @index[queue] } - paused
          order = take_turns(order) unless @groups.empty?
          shares = @weights ? split(order, limit) : Array.new(order.size, limit)
          return numbered(order.zip(shares)) if @levels.empty?
          numbered(prioritized(order, shares))
        end

        # One Lot per take, holding its jobs in the order taken. Tells
        # Suspects each queue's recovery count version, which may read Redis
        # (and raise Deckhand::RedisError: the lots are then the caller's to
        # hand back).
        def lots(takes, asked)
          takes.map do |take|
            index, id = asked[take.source]
            queue = @queues[index]
            @suspects.observe(queue, take.version)
            Lot.new(queue, index, id, take.payloads.size).hold(take.payloads)
          end
        end

        private

        # [index, share, level] per source, each given a lot id.
        def numbered(sources)
          base = @sequence.reserve(sources.size)
          sources.each_with_index.map { |(index, share, level), j| level ? [index, base + j + 1, share, level] : [index, base + j + 1, share] }
        end

        # [index, share, level] of every source in the order to drain them:
        # each queue's levels below 0, its own list, its levels above 0. The
        # partitions of a partitioned queue take the place of its first one
        # in the order together, level by level (the queue's own lists as
        # level 0), each level's partitions in their turn's order: priority
        # first, then the partitions' turns.
        def prioritized(order, shares)
          share = order.each_with_index.to_h { |index, j| [index, shares[j]] }
          done = {}
          order.each_with_index.flat_map do |index, j|
            next [] if done[index]
            group = @groups.find { |members| members.include?(index) }
            members = group ? order.drop(j).select { |i| group.include?(i) } : [index]
            members.each { |i| done[i] = true }
            sources = members.each_with_index.flat_map do |i, turn|
              [[0, turn, i, nil]] + @levels.fetch(i, []).map { |level| [level, turn, i, level] }
            end
            sources.sort_by { |level, turn, _, _| [level, turn] }.map { |_, _, i, level| [i, share[i], level] }
          end
        end

        # The partitions of each partitioned queue keep their places in the
        # order, each place taken by the next partition in turn.
        def take_turns(order)
          @turn += 1
          shift = @turn / TURN
          @groups.each do |group|
            places = order.each_index.select { |i| group.include?(order[i]) }
            next if places.size < 2
            turned = places.map { |i| order[i] }.rotate(shift % places.size)
            places.each_with_index { |place, k| order[place] = turned[k] }
          end
          order
        end

        def split(order, limit)
          weights = order.map { |index| @weights[index] }
          total = weights.sum
          return [] if total.zero?
          shares = weights.map { |weight| limit * weight / total }
          (limit - shares.sum).times { shares[pick(weights, total)] += 1 }
          shares
        end

        def pick(weights, total)
          point = @random.rand(total)
          weights.index { |weight| (point -= weight).negative? }
        end
      end
    end
  end
end
