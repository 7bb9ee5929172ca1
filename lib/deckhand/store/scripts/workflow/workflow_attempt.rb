# frozen_string_literal: true

require_relative "workflow_script"

module Deckhand
  class Store
    module Scripts
      # workflow_attempt.lua: a step's run starts (r), fails to be retried
      # (y) or is put back unrun (q), told by the server running its job.
      # None of these ends a step, so none releases one: the script is sent
      # without the graph's part (lib/workflow_finish.lua). Replies as the
      # script's header says.
      #
      #   WorkflowAttempt.new(store, now_ms: now, stamp: stamp).call("Wf7x", ["default"], ["r", jid, "k3f9a1c2"])
      class WorkflowAttempt < WorkflowScript # :nodoc:
        lua "workflow/workflow_attempt", uses: PLAN
      end
    end
  end
end
