# frozen_string_literal: true

require_relative "batch_script"

module Deckhand
  class Store
    module Scripts
      # batch_job_dead.lua: counts a job out of retries; the first death in a
      # batch fires its death callbacks, and its parent's. Args: the jid, the
      # error's JSON. Replies 1 (counted), 0 (not the batch's), or "stale".
      #
      #   BatchJobDead.new(store, now_ms: now, stamp: stamp).call(["b1"], ["default"], ["j1", error_json])  # => 1
      class BatchJobDead < BatchScript # :nodoc:
        lua "batch/batch_job_dead", uses: CHECK
      end
    end
  end
end
