# frozen_string_literal: true

module Deckhand
  class Store
    module Layout
      # The names of a batch's keys under a layout's PREFIX: what
      # PlainBatches (plain mode) and ClusterBatches (one hash tag) share.
      # Each extends it.
      #
      #   Deckhand::Store::Layout::PlainBatches.jids("iV4Fu-R5pmXv3g")         # => "deckhand:batch:iV4Fu-R5pmXv3g:jids"
      #   Deckhand::Store::Layout::ClusterBatches.jids("iV4Fu-R5pmXv3g")  # => "{batches}:batch:iV4Fu-R5pmXv3g:jids"
      module BatchNames # :nodoc:
        def batch(bid) = "#{self::PREFIX}#{bid}"

        def jids(bid) = "#{self::PREFIX}#{bid}:jids"

        def failed(bid) = "#{self::PREFIX}#{bid}:failed"

        def dead(bid) = "#{self::PREFIX}#{bid}:dead"

        def kids(bid) = "#{self::PREFIX}#{bid}:kids"

        # Every key of a batch, in the order the batch scripts take them.
        def all(bid) = [batch(bid), jids(bid), failed(bid), dead(bid), kids(bid)]
      end
    end
  end
end
