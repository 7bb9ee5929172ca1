# frozen_string_literal: true

# Loads only what reading needs: no middleware, no death handler. A dashboard
# may require this file without enabling batches in its process
# (`require "deckhand/batch"` does that).
require_relative "../../deckhand"
require_relative "../store/batch_keys"
require_relative "status"

module Deckhand
  class Batch
    # Read API for dashboards: batches newest first, a page at a time (one
    # round trip a page), one batch's status, its failures and its children.
    # Pages and stretches are bounded however many jobs a batch has.
    #
    #   listing = Deckhand::Batch::Listing.new(config)
    #   listing.size                              # => 42
    #   listing.page(offset: 0, limit: 25)        # => [Batch::Status, ...] (summaries)
    #   listing.status(bid)                       # => Batch::Status, or nil when gone
    #   listing.failures(bid)                     # => [{"jid" => ..., "error_class" => ..., ...}]
    #   cursor, some = listing.failure_page(bid)  # a stretch of them; cursor nil at the end
    #   listing.children(bid, limit: 100)         # => [Batch::Status, ...] (summaries)
    class Listing
      def initialize(config = Deckhand.config)
        @config = config
      end

      # Batches whose data has not expired (the index may lag by a few).
      def size = @config.store.call("ZCARD", Store::BatchKeys::INDEX)

      # Summaries: counts, no jids (Status.load).
      def page(offset: 0, limit: 25)
        return [] if limit <= 0
        bids = @config.store.call("ZRANGE", Store::BatchKeys::INDEX, offset, offset + limit - 1, "REV")
        Status.load(bids, config: @config, summary: true).select(&:exists?)
      end

      def status(bid, summary: false)
        status = Status.new(bid, config: @config, summary: summary)
        status.exists? ? status : nil
      end

      # Every failure of the batch, read at once: see failure_page for a
      # batch that may have many.
      def failures(bid) = status(bid)&.failure_info || []

      # About `count` failures from `cursor` (0: the start), in Redis's order,
      # as failure_info describes them: [next cursor or nil, failures]. A
      # small hash comes whole in one stretch.
      def failure_page(bid, cursor: 0, count: 25)
        store = @config.store
        cursor, flat = store.call("HSCAN", Store::BatchKeys.failed(bid), cursor, "COUNT", count)
        pairs = flat.each_slice(2).to_a
        dead = pairs.empty? ? [] : store.call("SMISMEMBER", Store::BatchKeys.dead(bid), *pairs.map(&:first))
        failures = pairs.each_with_index.map { |(jid, raw), i| Status.failure_entry(jid, raw, dead[i] == 1) }
        [(cursor.to_s == "0") ? nil : Integer(cursor), failures]
      end

      # Up to about `limit` child batches (one SSCAN stretch), as summaries.
      def children(bid, limit: 100)
        _cursor, bids = @config.store.call("SSCAN", Store::BatchKeys.kids(bid), 0, "COUNT", limit)
        Status.load(bids.first(limit), config: @config, summary: true).select(&:exists?)
      end
    end
  end
end
