# frozen_string_literal: true

module Deckhand
  class Store
    module Scripts
      # recover.lua: gives a dead process's unsettled jobs back to the front of
      # their queues in one atomic step, counting recoveries per jid and
      # setting poison pills aside.
      #
      #   Recover.new(store).call(identity: "host:1:abc", queues: %w[default], limit: 3, ttl: 86_400)
      #   # => [recovered, counted, poisoned], recovered -1 when the process
      #   #    lives and -2 when another reaper recovered it first
      class Recover < Script
        lua "recover", uses: ["lot"]

        def call(identity:, queues:, limit:, ttl:)
          list = [keys.process(identity), keys::OWNERS, keys::QUEUES, keys::PROCESSES]
          queues.each do |q|
            list.push(keys.inflight(identity, q), keys.landing(identity, q), keys.queue(q),
              keys.recoveries(q), keys.suspects(identity, q), keys.poison(q))
          end
          run(list, [identity, limit, ttl, *queues])
        end
      end
    end
  end
end
