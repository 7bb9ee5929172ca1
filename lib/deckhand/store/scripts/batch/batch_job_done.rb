# frozen_string_literal: true

require_relative "batch_script"

module Deckhand
  class Store
    module Scripts
      # batch_job_done.lua: counts a job that succeeded, once per jid. Args:
      # the jid. Replies 1 (counted now), 0 (counted before, or not the
      # batch's), or "stale".
      #
      #   BatchJobDone.new(store, now_ms: now, stamp: stamp).call(["b1"], ["default"], ["j1"])  # => 1
      class BatchJobDone < BatchScript # :nodoc:
        lua "batch/batch_job_done", uses: CHECK
      end
    end
  end
end
