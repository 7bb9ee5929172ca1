# frozen_string_literal: true

require_relative "batch_script"

module Deckhand
  class Store
    module Scripts
      # batch_pending.lua, cluster mode: lists the outbox's entries older
      # than the age given, and with jids as args those of them it still
      # holds, as the call's own. No lineage.
      #
      #   BatchPending.new(store, now_ms: now, stamp: stamp).call_with_outbox([], [], [], 30_000)
      #   # => ["ok", [[jid, queue, payload], ...], []]
      class BatchPending < BatchScript # :nodoc:
        lua "batch/batch_pending", uses: LIB
      end
    end
  end
end
