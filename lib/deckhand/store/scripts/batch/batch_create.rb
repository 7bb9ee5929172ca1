# frozen_string_literal: true

require_relative "batch_script"

module Deckhand
  class Store
    module Scripts
      # batch_create.lua: creates a batch, held open until BatchRelease, as a
      # child of its parent. Lineage: the new batch, then its parent if any;
      # args: parent bid or "", idle TTL ms, success TTL ms, callback queue,
      # description, then the encoded complete, success and death callbacks
      # ("" for none). Replies "ok", or "exists", "parent_gone", "parent_done".
      #
      #   BatchCreate.new(store, now_ms: now, stamp: stamp)
      #     .call(["b1"], [], ["", 2_592_000_000, 86_400_000, "default", "Import", "", on_success, ""])  # => "ok"
      class BatchCreate < BatchScript # :nodoc:
        lua "batch/batch_create", uses: LIB
      end
    end
  end
end
