# frozen_string_literal: true

require_relative "batch_script"

module Deckhand
  class Store
    module Scripts
      # batch_add.lua: registers jids with a held batch and, in plain mode,
      # pushes their jobs in the same step (the queues they go to are
      # declared with the lineage's). Args: n, the n jids, the queue count,
      # per queue its name, count and payloads, the scheduled count and
      # (score, payload) pairs (in cluster mode no jobs, 0, 0: the caller
      # pushes them), then the seconds its mark lives; the mark is declared
      # last (Store::PushMarks: a call whose mark is written changes
      # nothing). Replies "ok", or "seen", "gone", "stale".
      #
      #   BatchAdd.new(store, now_ms: now, stamp: stamp)
      #     .call(["b1"], ["default"], [1, "j1", 1, "default", 1, payload, 0, 600], pushed: ["j1"], mark: mark)  # => "ok"
      class BatchAdd < BatchScript # :nodoc:
        lua "batch/batch_add", uses: LIB
      end
    end
  end
end
