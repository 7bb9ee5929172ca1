# frozen_string_literal: true

module Deckhand
  class Store
    module Scripts
      # recover_queue.lua: cluster mode's recovery of one queue's share of a
      # dead process's in-flight record, every key in the queue's slot.
      # Scripts::Recover runs it once per queue, between its check that the
      # process is still judged dead and forgetting the process.
      #
      #   RecoverQueue.new(store).call("host:1:abc", "default", ["7", "8"], limit: 3, ttl: 86_400)
      #   # => [recovered, counted, poisoned]
      class RecoverQueue < Script # :nodoc:
        lua "fetch/recover_queue", uses: ["guard", "lot", "throttle", "recover"]

        def call(identity, queue, lot_ids, limit:, ttl:)
          list = Recover.queue_keys(keys, identity, queue) + lot_ids.map { |id| keys.lot(identity, queue, id) }
          run(list, [identity, limit, ttl, *lot_ids])
        end
      end
    end
  end
end
