# frozen_string_literal: true

# Loads only what reading needs: no middleware, no death handler. A dashboard
# may require this file without enabling batches in its process
# (`require "deckhand/batch"` does that).
require_relative "../../deckhand"
require_relative "../store/features/batch_records"
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
      def size = Store::Features::BatchRecords.count(@config.store)

      # Summaries: counts, no jids (Status.load).
      def page(offset: 0, limit: 25)
        bids = Store::Features::BatchRecords.newest(@config.store, offset, limit)
        Status.load(bids, config: @config, summary: true).select(&:exists?)
      end

      # The batch's Status (counts only with `summary: true`), or nil when Redis no longer has it.
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
        cursor, found = Store::Features::BatchRecords.failures(@config.store, bid, cursor: cursor, count: count)
        [cursor, found.map { |jid, raw, dead| Status.failure_entry(jid, raw, dead) }]
      end

      # Up to about `limit` child batches (one SSCAN stretch), as summaries.
      def children(bid, limit: 100)
        bids = Store::Features::BatchRecords.children(@config.store, bid, limit: limit)
        Status.load(bids, config: @config, summary: true).select(&:exists?)
      end
    end
  end
end
