# frozen_string_literal: true

module Deckhand
  class Store
    module Scripts
      # requeue.lua: hands in-flight jobs of one process back to the front of
      # their queues, atomically.
      #
      #   requeue = Requeue.new(store, identity: "host:1:abc", queues: %w[default mail])
      #   requeue.all                                    # shutdown: everything unsettled
      #   requeue.some([[0, 42, 7], [0, 42, 6]])         # these jobs, marked settled
      #   requeue.lots([[1, 43]])                        # whole lots of a lost fetch
      #
      # Each returns the number of jobs handed back.
      class Requeue < Script
        lua "requeue", uses: ["lot"]

        def initialize(store, identity:, queues:)
          super(store)
          @queues = queues
          @keys = [keys::QUEUES]
          queues.each { |q| @keys.push(keys.inflight(identity, q), keys.landing(identity, q), keys.queue(q)) }
        end

        def all = hand_back("all", [])

        # jobs: [queue index, lot id, position]; every landing list goes too.
        def some(jobs)
          ordered = jobs.sort_by { |index, lot, position| [-lot.to_i, -position, index] }
          hand_back("some", ordered.flat_map { |index, lot, position| [index + 1, lot, position] })
        end

        # lots: [queue index, lot id].
        def lots(lots) = hand_back("lots", lots.flat_map { |index, lot| [index + 1, lot] })

        private

        def hand_back(mode, list) = run(@keys, [mode, @queues.size, *@queues, *list])
      end
    end
  end
end
