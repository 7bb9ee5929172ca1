# frozen_string_literal: true

require_relative "workflow_script"

module Deckhand
  class Store
    module Scripts
      # workflow_reopen.lua: a step that died or was dropped starts again
      # (retried by hand); its end is undone down the graph and a workflow
      # that had ended runs again. Replies "run" or "cancelled" (the
      # script's header).
      #
      #   WorkflowReopen.new(store, now_ms: now, stamp: stamp).call("Wf7x", ["default"], [jid])
      class WorkflowReopen < WorkflowScript # :nodoc:
        lua "workflow/workflow_reopen", uses: REOPEN
      end
    end
  end
end
