# frozen_string_literal: true

require_relative "workflow_script"

module Deckhand
  class Store
    module Scripts
      # workflow_create.lua: creates a workflow, held (no step runs before
      # workflow_add.lua starts it), with its id, description and TTLs.
      # Replies "ok", or "exists" when a push of it began before.
      #
      #   WorkflowCreate.new(store, now_ms: now, stamp: stamp).call("Wf7x", ["default"], args)
      class WorkflowCreate < WorkflowScript # :nodoc:
        lua "workflow/workflow_create", uses: CORE
      end
    end
  end
end
