# frozen_string_literal: true

require_relative "../throttles"

module Deckhand
  class Store
    module Scripts
      # recover.lua: gives a dead process's unsettled jobs back to the front of
      # their queues in one atomic step, counting recoveries per jid and
      # setting poison pills aside. Reads the dead process's lot ids first, so
      # the script declares every list it touches.
      #
      #   Recover.new(store).call(identity: "host:1:abc", beat: nil, queues: %w[default], limit: 3, ttl: 86_400)
      #   # => [recovered, counted, poisoned], recovered -1 when the process
      #   #    beat again since it was judged (beat: the "beat" field seen then,
      #   #    nil when its record had expired) and -2 when another reaper
      #   #    recovered it first
      class Recover < Script
        lua "recover", uses: ["lot", "throttle"]

        def call(identity:, beat:, queues:, limit:, ttl:)
          list = [keys.process(identity), keys::OWNERS, keys::QUEUES, keys::PROCESSES]
          queues.each do |q|
            list.push(keys.inflight(identity, q), keys.landing(identity, q), keys.queue(q),
              keys.recoveries(q), keys.suspects(identity, q), keys.poison(q))
          end
          lots = Inflight.lots(@store, identity, queues).each_with_index.flat_map do |(queue, ids), index|
            ids.map { |id| [index, queue, id] }
          end
          lots.each { |_, queue, id| list << keys.lot(identity, queue, id) }
          queues.each { |q| list << Throttles.key(q) }
          run(list, [identity, beat.to_s, limit, ttl, queues.size, *queues, *lots.flat_map { |index, _, id| [index + 1, id] }])
        end
      end
    end
  end
end
