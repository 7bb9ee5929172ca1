# frozen_string_literal: true

require_relative "workflow_names"

module Deckhand
  class Store
    module Layout
      # The workflow keys in cluster mode: Layout::PlainWorkflows' layout,
      # every key under the one hash tag {workflows}, so a workflow's keys,
      # the two indexes, the fleet's counters and the outbox sit in one slot
      # and each workflow script stays one atomic call that checks before it
      # writes. Released steps' jobs cannot be pushed in that call (their
      # queues are other slots): it records them in the outbox, and
      # Store::Features::WorkflowOutbox pushes them to their queues, each jid
      # once (docs/workflows.md, "Cluster mode").
      #
      #   keys = Deckhand::Store::Layout::ClusterWorkflows
      #   keys.meta("Wf7x")                 # => "{workflows}:workflow:Wf7x"
      #   keys::INDEX                       # => "{workflows}:index"
      #   keys.pushed("{queue:mail}")       # => "{queue:mail}:workflow-released"
      module ClusterWorkflows # :nodoc:
        TAG = "{workflows}"
        PREFIX = "#{TAG}:workflow:"
        INDEX = "#{TAG}:index"
        EXPIRIES = "#{TAG}:expiry"
        COUNTS = "#{TAG}:counts"

        # Released steps not yet known to be in their queue: a sorted set
        # jid => when released (epoch ms), and a hash jid => JSON [queue,
        # payload].
        OUTBOX = "#{TAG}:outbox"
        OUTBOX_JOBS = "#{TAG}:outbox:jobs"

        include WorkflowNames
        extend WorkflowNames

        module_function

        def outbox? = true

        # Sorted set in the queue's slot: jid => until when (epoch ms) a
        # released step's job pushed to the queue is remembered, so handing
        # it over again is a no-op. `tag`: the queue's hash tag, from the
        # store's layout (its placement).
        def pushed(tag) = "#{tag}:workflow-released"
      end
    end
  end
end
