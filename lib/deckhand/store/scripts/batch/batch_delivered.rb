# frozen_string_literal: true

require_relative "batch_script"

module Deckhand
  class Store
    module Scripts
      # batch_delivered.lua, cluster mode: clears from the outbox the
      # callbacks now in their queues. No lineage; args: their jids.
      #
      #   BatchDelivered.new(store, now_ms: now, stamp: stamp).call_with_outbox([], [], ["cb1"], 30_000)
      class BatchDelivered < BatchScript # :nodoc:
        lua "batch/batch_delivered", uses: LIB
      end
    end
  end
end
