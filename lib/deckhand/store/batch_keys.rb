# frozen_string_literal: true

module Deckhand
  class Store
    # The Redis keys of batches (Deckhand::Batch). Every key of a batch starts
    # with PREFIX + bid. The batch script (store/scripts/batch_ops.lua) builds
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
    module BatchKeys
      PREFIX = "deckhand:batch:"

      # bid => creation time (epoch milliseconds): the list, newest first.
      INDEX = "deckhand:batches"

      # bid => when its data expires (epoch milliseconds): pruned as it goes.
      EXPIRIES = "deckhand:batches:expiry"

      PARTS = %w[jids failed dead kids].freeze

      module_function

      def batch(bid) = "#{PREFIX}#{bid}"

      def jids(bid) = "#{PREFIX}#{bid}:jids"

      def failed(bid) = "#{PREFIX}#{bid}:failed"

      def dead(bid) = "#{PREFIX}#{bid}:dead"

      def kids(bid) = "#{PREFIX}#{bid}:kids"

      def all(bid) = [batch(bid), *PARTS.map { |part| "#{PREFIX}#{bid}:#{part}" }]
    end
  end
end
