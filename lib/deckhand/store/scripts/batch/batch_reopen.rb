# frozen_string_literal: true

require_relative "batch_script"

module Deckhand
  class Store
    module Scripts
      # batch_reopen.lua: holds an existing batch open to add jobs, until
      # BatchRelease. No args; replies "ok", or "gone", "done", "stale".
      #
      #   BatchReopen.new(store, now_ms: now, stamp: stamp).call(["b1"], ["default"], [])  # => "ok"
      class BatchReopen < BatchScript # :nodoc:
        lua "batch/batch_reopen", uses: LIB
      end
    end
  end
end
