# frozen_string_literal: true

require_relative "workflow_script"

module Deckhand
  class Store
    module Scripts
      # workflow_add.lua: adds a slice of a push's steps to a held workflow;
      # the last slice starts it, releasing the steps that wait for nothing.
      # Replies "ok", "closed", "gone" or "stale" (the script's header).
      #
      #   WorkflowAdd.new(store, now_ms: now, stamp: stamp).call("Wf7x", ["default"], args)
      class WorkflowAdd < WorkflowScript # :nodoc:
        lua "workflow/workflow_add", uses: PUSH
      end
    end
  end
end
