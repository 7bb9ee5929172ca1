# frozen_string_literal: true

module Deckhand
  class Batch
    # Read API for dashboards: batches newest first, a page at a time (one
    # round trip a page), and one batch's status and failures.
    #
    #   listing = Deckhand::Batch::Listing.new(config)
    #   listing.size                              # => 42
    #   listing.page(offset: 0, limit: 25)        # => [Batch::Status, ...]
    #   listing.status(bid)                       # => Batch::Status, or nil when gone
    #   listing.failures(bid)                     # => [{"jid" => ..., "error_class" => ..., ...}]
    class Listing
      def initialize(config = Deckhand.config)
        @config = config
      end

      # Batches whose data has not expired (the index may lag by a few).
      def size = @config.store.call("ZCARD", Store::BatchKeys::INDEX)

      def page(offset: 0, limit: 25)
        return [] if limit <= 0
        bids = @config.store.call("ZRANGE", Store::BatchKeys::INDEX, offset, offset + limit - 1, "REV")
        Status.load(bids, config: @config).select(&:exists?)
      end

      def status(bid)
        status = Status.new(bid, config: @config)
        status.exists? ? status : nil
      end

      def failures(bid) = status(bid)&.failure_info || []
    end
  end
end
