# frozen_string_literal: true

require_relative "../throttles"

module Deckhand
  class Store
    module Scripts
      # requeue.lua: hands in-flight jobs of one process back to the front of
      # their queues, atomically.
      #
      #   requeue = Requeue.new(store, identity: "host:1:abc", queues: %w[default mail])
      #   requeue.all                                   # shutdown: everything unsettled
      #   requeue.some([[0, 42, 7], [0, 42, 6]], landed: [[1, raw]])   # these jobs, marked settled
      #   requeue.lots([[1, 43]])                       # whole lots of a lost fetch
      #
      # Each returns the number of jobs handed back.
      class Requeue < Script
        lua "requeue", uses: ["lot", "throttle"]

        def initialize(store, identity:, queues:)
          super(store)
          @identity = identity
          @queues = queues
          @keys = [keys::QUEUES]
          queues.each { |q| @keys.push(keys.inflight(identity, q), keys.landing(identity, q), keys.queue(q)) }
        end

        # Every unsettled job and every landing list. Reads the lot ids first;
        # a lot added in between (there is none: the fetchers have stopped)
        # would stay for the reaper.
        def all
          lots = Inflight.lots(@store, @identity, @queues).each_with_index.flat_map do |(_, ids), index|
            ids.map { |id| [index, id] }
          end
          hand_back("lots", "landing", lots)
        end

        # jobs: [queue index, lot id, position]; landed: [queue index, payload]
        # of jobs an idle waiter landed and handed out.
        def some(jobs, landed: [])
          grouped = jobs.group_by { |index, id, _| [index, id] }.sort_by { |(index, id), _| [-id.to_i, index] }
          lots = []
          argv = []
          grouped.each_with_index do |((index, id), list), n|
            lots << lot(index, id)
            positions = list.map(&:last).sort.reverse
            argv.push(n + 1, index + 1, id, positions.size, *positions)
          end
          run(@keys + lots + throttle_keys, ["some", "-", @queues.size, *@queues, @identity, landed.size, *landed.flat_map { |i, raw| [i + 1, raw] }, *argv])
        end

        # lots: [queue index, lot id].
        def lots(lots) = hand_back("lots", "-", lots.sort_by { |index, id| [id.to_i, index] })

        private

        def lot(index, id) = keys.lot(@identity, @queues[index], id)

        def throttle_keys = @queues.map { |q| Throttles.key(q) }

        def hand_back(mode, landing, lots)
          run(@keys + lots.map { |index, id| lot(index, id) } + throttle_keys,
            [mode, landing, @queues.size, *@queues, @identity, *lots.flat_map { |index, id| [index + 1, id] }])
        end
      end
    end
  end
end
