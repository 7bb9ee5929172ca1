# frozen_string_literal: true

require_relative "workflow_script"

module Deckhand
  class Store
    module Scripts
      # workflow_cancel.lua: cancels a workflow by hand, every step not
      # started with it. Replies the number of steps cancelled, "ended",
      # "gone" or "stale" (the script's header).
      #
      #   WorkflowCancel.new(store, now_ms: now, stamp: stamp).call("Wf7x", ["default"], [why_json])
      class WorkflowCancel < WorkflowScript # :nodoc:
        lua "workflow/workflow_cancel", uses: PLAN
      end
    end
  end
end
