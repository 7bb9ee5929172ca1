# frozen_string_literal: true

require_relative "workflow_names"

module Deckhand
  class Store
    module Layout
      # The Redis keys of workflows (Deckhand::Workflow), in Deckhand's own
      # names: a Sidekiq process sharing the Redis never reads them. The
      # workflow scripts (store/scripts/workflow/) build none:
      # Store::Scripts::WorkflowScript declares them, in the order of #all.
      #
      #   deckhand:workflow:<wid>           hash: description, times, TTLs, state, counts, queues
      #   deckhand:workflow:<wid>:state     hash: step jid => its state's letter (lib/workflow.lua)
      #   deckhand:workflow:<wid>:on        hash: jid => what it waits for (s, c or f) and its queue
      #   deckhand:workflow:<wid>:wait      hash: jid => how many of its parents have not ended
      #   deckhand:workflow:<wid>:kids      hash: jid => the jids waiting for it
      #   deckhand:workflow:<wid>:parents   hash: jid => the jids it waits for
      #   deckhand:workflow:<wid>:jobs      hash: jid => its job, pushed once released
      #   deckhand:workflow:<wid>:results   hash: jid => its return value (JSON)
      #   deckhand:workflow:<wid>:errors    hash: jid => its error (JSON), once it failed for good
      #   deckhand:workflow:<wid>:info      hash: jid => JSON of its name and class
      #   deckhand:workflow:<wid>:names     hash: step name => its jids
      #   deckhand:workflow:<wid>:runs      hash: jid => the token of its run last started, so late
      #                                     news of an earlier run changes nothing (workflow_attempt.lua)
      #   deckhand:workflow:<wid>:done      list: one entry once it ended (waiters
      #                                     read it with a blocking move onto itself)
      #   deckhand:result:<jid>             list: one job's kept return value (Deckhand::JobResult)
      #
      # Every hash holds a placeholder field, "~", from the push on, so none is
      # made later without the workflow's TTL. Two sorted sets index the
      # workflows, for listing and for expiry; one hash counts what they did.
      # In cluster mode the names carry one hash tag (Layout::ClusterWorkflows).
      #
      #   Deckhand::Store::Layout::PlainWorkflows.state("Wf7x")  # => "deckhand:workflow:Wf7x:state"
      module PlainWorkflows # :nodoc:
        PREFIX = "deckhand:workflow:"

        # wid => creation time (epoch ms): the list, newest first.
        INDEX = "deckhand:workflows"

        # wid => when its keys expire (epoch ms): pruned as it goes.
        EXPIRIES = "deckhand:workflows:expiry"

        # The fleet's workflow counters, all time: pushed, ended:<state>,
        # released and cancelled (steps). Each workflow script adds what it
        # did (cancelled: its net cancels, as no script both cancels and
        # revives a step); Operations::Fleet serves them to Prometheus.
        COUNTS = "deckhand:workflows:counts"

        include WorkflowNames
        extend WorkflowNames

        module_function

        # False: released steps' jobs are pushed to their queues in the step
        # that releases them (ClusterWorkflows has an outbox instead).
        def outbox? = false
      end
    end
  end
end
