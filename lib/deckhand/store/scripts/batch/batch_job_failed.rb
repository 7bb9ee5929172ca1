# frozen_string_literal: true

require_relative "batch_script"

module Deckhand
  class Store
    module Scripts
      # batch_job_failed.lua: counts a job that failed (and will be retried),
      # once until it succeeds. Args: the jid, the error's JSON. Replies 1
      # (counted now), 0 (counted before, or not the batch's), or "stale".
      #
      #   BatchJobFailed.new(store, now_ms: now, stamp: stamp).call(["b1"], ["default"], ["j1", error_json])  # => 1
      class BatchJobFailed < BatchScript # :nodoc:
        lua "batch/batch_job_failed", uses: CHECK
      end
    end
  end
end
