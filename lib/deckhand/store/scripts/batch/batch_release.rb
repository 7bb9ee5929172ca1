# frozen_string_literal: true

require_relative "batch_script"

module Deckhand
  class Store
    module Scripts
      # batch_release.lua: lets go of the hold taken by BatchCreate or
      # BatchReopen; the batch may complete now and fire its callbacks. No
      # args; replies "ok", or "gone", "stale".
      #
      #   BatchRelease.new(store, now_ms: now, stamp: stamp).call(["b1"], ["default"], [])  # => "ok"
      class BatchRelease < BatchScript # :nodoc:
        lua "batch/batch_release", uses: CHECK
      end
    end
  end
end
