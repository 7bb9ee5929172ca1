# frozen_string_literal: true

require_relative "workflow_script"

module Deckhand
  class Store
    module Scripts
      # workflow_extend.lua: a running step adds steps to its workflow, all
      # or none, each once; what can run is released and what cannot is
      # cancelled in the same atomic step, and grafted steps hold back the
      # adder's dependents. Replies the number added, "cancelled",
      # "not_running", "gone" or "stale" (the script's header).
      #
      #   WorkflowExtend.new(store, now_ms: now, stamp: stamp).call("Wf7x", ["default"], [adder_jid, 1, *step])
      class WorkflowExtend < WorkflowScript # :nodoc:
        lua "workflow/workflow_extend", uses: EXTEND
      end
    end
  end
end
