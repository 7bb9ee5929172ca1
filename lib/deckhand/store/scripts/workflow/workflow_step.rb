# frozen_string_literal: true

require_relative "workflow_script"

module Deckhand
  class Store
    module Scripts
      # workflow_step.lua: a step's news from the server running its job (r,
      # y, q, s, x, d, c); an end releases or cancels the steps waiting for
      # it, in the same atomic step. Replies as the script's header says.
      #
      #   WorkflowStep.new(store, now_ms: now, stamp: stamp).call("Wf7x", ["default"], args)
      class WorkflowStep < WorkflowScript # :nodoc:
        lua "workflow/workflow_step", uses: GRAPH
      end
    end
  end
end
