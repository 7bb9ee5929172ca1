# frozen_string_literal: true

require_relative "workflow_script"

module Deckhand
  class Store
    module Scripts
      # workflow_step.lua: a step's end from the server running its job (s,
      # x, d, c) releases or cancels the steps waiting for it, in the same
      # atomic step. Replies as the script's header says.
      #
      #   WorkflowStep.new(store, now_ms: now, stamp: stamp).call("Wf7x", ["default"], ["s", jid, "42"])
      class WorkflowStep < WorkflowScript # :nodoc:
        lua "workflow/workflow_step", uses: GRAPH
      end
    end
  end
end
