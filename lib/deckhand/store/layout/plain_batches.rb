# frozen_string_literal: true

require_relative "batch_names"

module Deckhand
  class Store
    module Layout
      # The Redis keys of batches (Deckhand::Batch). Every key of a batch starts
      # with PREFIX + bid. The batch scripts (store/scripts/batch_*.lua) build
      # none: Store::Scripts::BatchOps declares the keys it touches, in the
      # order of #all.
      #
      #   deckhand:batch:<bid>         hash: description, counters, callbacks, times
      #   deckhand:batch:<bid>:jids    set: jids not yet succeeded (pending)
      #   deckhand:batch:<bid>:failed  hash: jid => JSON of its last error, while it fails
      #   deckhand:batch:<bid>:dead    set: jids that died
      #   deckhand:batch:<bid>:kids    set: bids of child batches
      #
      # Two sorted sets index the batches, for listing and for expiry. Every key,
      # the indexes included, carries a TTL, so nothing outlives its batches.
      #
      # In cluster mode the names carry one hash tag (Layout::ClusterBatches);
      # code that runs in both modes names keys through its store's layout:
      #
      #   store.layout.batches.batch("iV4Fu-R5pmXv3g")
      #   # => "deckhand:batch:iV4Fu-R5pmXv3g", or "{batches}:batch:iV4Fu-R5pmXv3g" in cluster mode
      module PlainBatches # :nodoc:
        PREFIX = "deckhand:batch:"

        # bid => creation time (epoch milliseconds): the list, newest first.
        INDEX = "deckhand:batches"

        # bid => when its data expires (epoch milliseconds): pruned as it goes.
        EXPIRIES = "deckhand:batches:expiry"

        extend BatchNames

        module_function

        # False: callback jobs are pushed in the same atomic step that fires
        # them (ClusterBatches has an outbox instead).
        def outbox? = false

        # String: the mark of one call adding jobs to a batch (batch_add.lua,
        # Store::PushMarks), by which Redis answers, after the call's reply
        # was lost, whether it ran it. Not a batch's key: it outlives none
        # that matter, and expires on its own. `id` is the call's.
        def push_mark(id) = "deckhand:push:#{id}"
      end
    end
  end
end
