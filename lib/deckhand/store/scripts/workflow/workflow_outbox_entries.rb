# frozen_string_literal: true

require_relative "../../script"
require_relative "../../layout/cluster_workflows"

module Deckhand
  class Store
    module Scripts
      # Cluster mode: runs workflow_outbox_entries.lua, which lists the released
      # steps' jobs the workflow scripts left in the outbox and clears those
      # now in their queues (Store::Features::WorkflowOutbox calls it).
      #
      #   outbox = WorkflowOutboxEntries.new(store)
      #   outbox.list(1_764_000_000_000, 100)   # => [[jid, "default", payload], ...]
      #   outbox.clear([jid])                   # => 1
      class WorkflowOutboxEntries < Script # :nodoc:
        lua "workflow/workflow_outbox_entries", uses: ["guard"]

        NAMES = Layout::ClusterWorkflows

        # Entries released at or before `until_ms` (epoch ms), `limit` at most,
        # the oldest first: [jid, queue, payload] each.
        def list(until_ms, limit) = run([NAMES::OUTBOX, NAMES::OUTBOX_JOBS], ["list", until_ms, limit]).each_slice(3).to_a

        def clear(jids) = run([NAMES::OUTBOX, NAMES::OUTBOX_JOBS], ["clear", *jids])
      end
    end
  end
end
