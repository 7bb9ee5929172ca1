# frozen_string_literal: true

require_relative "../layout/plain_batches"

module Deckhand
  class Store
    module Features
      # Where each batch sits: its bid and callback queue, then its parent's, and
      # so on up: what the batch scripts must be told so every key it may touch is
      # declared. A batch's parent and callback queue are set when it is created
      # and never change, so a lineage read once is kept (for a bounded number
      # of batches) and reused; the script answers "stale" in the unlikely case
      # it no longer matches, and the caller reads it again.
      #
      #   lineages = BatchLineages.new
      #   lineages.fetch(store, bid)   # => [[bid, "default"], [parent_bid, "critical"]]
      #   lineages.read(store, bid)    # from Redis again, one round trip per level
      class BatchLineages # :nodoc:
        # Deeper than any real nesting: a guard against a corrupted chain.
        MAX_DEPTH = 100

        def initialize(capacity: 10_000)
          @capacity = capacity
          @lock = Mutex.new
          @known = {}
        end

        def fetch(store, bid) = known(bid) || read(store, bid)

        def known(bid) = @lock.synchronize { @known[bid] }

        # A batch that is gone reads as [[bid, nil]] and is not kept.
        def read(store, bid)
          line = []
          current = bid
          while current && line.size < MAX_DEPTH && line.none? { |seen, _| seen == current }
            parent, queue = store.call("HMGET", store.layout.batches.batch(current), "parent", "callback_queue")
            line << [current, queue]
            current = (queue && parent && !parent.empty?) ? parent : nil
          end
          line.first[1] ? remember(bid, line) : line
        end

        def remember(bid, line)
          @lock.synchronize do
            @known.delete(bid)
            @known[bid] = line
            @known.shift while @known.size > @capacity
          end
          line
        end
      end
    end
  end
end
