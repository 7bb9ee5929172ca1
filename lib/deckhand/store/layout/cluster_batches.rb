# frozen_string_literal: true

require_relative "batch_names"

module Deckhand
  class Store
    module Layout
      # The batch keys in cluster mode: Layout::PlainBatches' layout, every key under
      # the one hash tag {batches}, so a batch, its whole lineage (parent,
      # grandparent...), the two indexes and the outbox sit in one slot and
      # each batch script stays one atomic call. Callback jobs cannot be pushed in
      # that call (their queue is another slot): it records them in the outbox,
      # and Store::Scripts::BatchOps pushes them right after (docs/batches.md,
      # "Cluster mode").
      #
      #   keys = Deckhand::Store::Layout::ClusterBatches
      #   keys.batch("iV4Fu-R5pmXv3g")   # => "{batches}:batch:iV4Fu-R5pmXv3g"
      #   keys::INDEX                    # => "{batches}:index"
      #   keys.pushed("{queue:mail}")    # => "{queue:mail}:batch-callbacks"
      module ClusterBatches # :nodoc:
        TAG = "{batches}"
        PREFIX = "#{TAG}:batch:"
        INDEX = "#{TAG}:index"
        EXPIRIES = "#{TAG}:expiry"

        # Callback jobs fired but not yet known to be in their queue: a sorted
        # set jid => when fired (epoch microseconds, in firing order), and a
        # hash jid => JSON [queue, payload].
        OUTBOX = "#{TAG}:outbox"
        OUTBOX_JOBS = "#{TAG}:outbox:jobs"

        extend BatchNames

        module_function

        def outbox? = true

        # In the batches' slot, where batch_add.lua runs (PlainBatches.push_mark).
        def push_mark(id) = "#{TAG}:push:#{id}"

        # Sorted set in the queue's slot: jid => until when (epoch ms) a callback
        # job pushed to the queue is remembered, so pushing it again is a no-op.
        # `tag`: the queue's hash tag, from the store's layout (its placement).
        def pushed(tag) = "#{tag}:batch-callbacks"
      end
    end
  end
end
