# frozen_string_literal: true

require "json"

module Deckhand
  class Batch
    # A batch's state, read in one round trip when built (call #reload to read
    # again). A batch that expired, or never existed, reads as missing.
    #
    #   status = Deckhand::Batch::Status.new(bid)
    #   status.total         # => 200   jobs ever added
    #   status.pending       # => 3     not yet succeeded
    #   status.failures      # => 1     failing now (ran, raised, not yet succeeded)
    #   status.failed_jids   # => ["b4a5..."]
    #   status.complete?     # => false every job ran once, child batches complete
    #   status.success?      # => false every job succeeded
    #   status.created_at    # => 2026-11-02 10:00:00 +0000
    class Status
      attr_reader :bid, :pending

      # Many statuses in one round trip.
      def self.load(bids, config: Deckhand.config)
        return [] if bids.empty?
        replies = config.store.pipelined { |pipe| bids.each { |bid| queue_reads(pipe, bid) } }
        bids.each_with_index.map { |bid, i| new(bid, config: config, replies: replies[i * 5, 5]) }
      end

      def self.queue_reads(pipe, bid)
        pipe.call("HGETALL", Store::BatchKeys.batch(bid))
        pipe.call("SCARD", Store::BatchKeys.jids(bid))
        pipe.call("HGETALL", Store::BatchKeys.failed(bid))
        pipe.call("SMEMBERS", Store::BatchKeys.dead(bid))
        pipe.call("SMEMBERS", Store::BatchKeys.kids(bid))
      end

      def initialize(bid, config: Deckhand.config, replies: nil)
        @bid = bid
        @config = config
        replies ? read(replies) : reload
      end

      def reload = read(@config.store.pipelined { |pipe| self.class.queue_reads(pipe, @bid) })

      def exists? = !@fields.empty?

      def description = @fields["description"]

      def total = @fields["total"].to_i

      def failures = @failed.size

      def failed_jids = @failed.keys

      def dead_jids = @dead

      def parent_bid = @fields["parent"]

      def child_bids = @kids

      def callback_queue = @fields["callback_queue"]

      def complete? = @fields.key?("complete_at")

      def success? = @fields.key?("success_at")

      def death? = @fields.key?("death_at")

      def created_at = time("created_at")

      def complete_at = time("complete_at")

      def success_at = time("success_at")

      # Each failing job's last error: jid, class, error_class, error_message,
      # failed_at (a Time), retry_count, and dead (true once it died).
      def failure_info
        @failed.map do |jid, raw|
          info = JSON.parse(raw)
          info.merge("jid" => jid, "failed_at" => Payload.to_time(info["failed_at"]), "dead" => @dead.include?(jid))
        end
      end

      # Plain data for dashboards and JSON APIs.
      def to_h
        {
          "bid" => @bid, "description" => description, "total" => total, "pending" => pending,
          "failures" => failures, "dead" => @dead.size, "complete" => complete?, "success" => success?,
          "created_at" => created_at&.to_f, "complete_at" => complete_at&.to_f, "success_at" => success_at&.to_f,
          "parent_bid" => parent_bid, "child_bids" => child_bids
        }
      end

      private

      def read(replies)
        @fields, @pending, @failed, @dead, @kids = replies
        self
      end

      def time(field)
        value = @fields[field] or return nil
        Payload.to_time(Integer(value))
      end
    end
  end
end
