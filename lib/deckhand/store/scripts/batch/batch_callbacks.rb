# frozen_string_literal: true

require_relative "../../layout/cluster_batches"

module Deckhand
  class Store
    module Scripts
      # Cluster mode: runs batch_callbacks.lua, which pushes fired batch
      # callbacks to their queue, each jid once (BatchOps calls it), and the
      # jobs of released workflow steps (Features::WorkflowOutbox, with
      # `names: Layout::ClusterWorkflows`: their own set of pushed jids).
      #
      #   pushes = BatchCallbacks.new(store, now_ms: 1_764_000_000_000)
      #   pushes.push("default", [[jid, payload]])   # => 1 (pushed), 0 when pushed before
      #   pushes.delivered("default", [jid])         # the outbox no longer holds it: remembered briefly
      class BatchCallbacks < Script # :nodoc:
        lua "batch/batch_callbacks", uses: ["guard"]

        # How long a queue remembers a callback it got while the outbox may
        # still hold it (its pusher crashed before clearing it): a crash
        # followed by no batch call and no running server (whose outbox
        # drain takes it within a minute) for this long is the one case
        # where a callback could be pushed twice.
        REMEMBER_MS = 30 * 24 * 60 * 60 * 1000

        # How long once the outbox no longer holds it: longer than any caller
        # that took it from the outbox at the same moment takes to push it.
        GRACE_MS = 10 * 60 * 1000

        # names: the layout naming the queue's set of pushed jids (#pushed).
        def initialize(store, now_ms:, names: Layout::ClusterBatches)
          super(store)
          @now_ms = now_ms
          @names = names
        end

        def push(queue, entries) = call(queue, "push", REMEMBER_MS, entries.flatten(1))

        def delivered(queue, jids) = call(queue, "delivered", GRACE_MS, jids)

        private

        def call(queue, op, keep_ms, args)
          run([keys.queue(queue), @names.pushed(keys.tag(queue))], [@now_ms, op, keep_ms, *args])
        end
      end
    end
  end
end
