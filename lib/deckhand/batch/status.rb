# frozen_string_literal: true

require "json"
require_relative "../payload"
require_relative "../store/features/batch_records"

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
      # Each event and the field that says when it fired.
      FIRED = {"complete" => "complete_at", "success" => "success_at", "death" => "death_at"}.freeze

      # pending: jobs not yet succeeded; dead_count and child_count: jobs that
      # died, child batches.
      attr_reader :bid, :pending, :dead_count, :child_count

      # Many statuses in one round trip. With summary: true only counts are
      # read (a few bytes a batch, however many of its jobs fail): enough
      # for a list of batches. A summary reads the jids and errors it left
      # out when one of them is asked for.
      def self.load(bids, config: Deckhand.config, summary: false)
        states = Store::Features::BatchRecords.states(config.store, bids, summary: summary)
        bids.zip(states).map { |bid, state| new(bid, config: config, replies: state, summary: summary) }
      end

      # One failing job's last error, as #failure_info lists them.
      def self.failure_entry(jid, raw, dead)
        info = JSON.parse(raw)
        info.merge("jid" => jid, "failed_at" => Payload.to_time(info["failed_at"]), "dead" => dead)
      end

      def initialize(bid, config: Deckhand.config, replies: nil, summary: false)
        @bid = bid
        @config = config
        replies ||= Store::Features::BatchRecords.states(@config.store, [@bid], summary: summary).first
        read(replies, summary)
      end

      # Reads the batch again, its jids included.
      def reload = read(Store::Features::BatchRecords.states(@config.store, [@bid]).first, false)

      # Whether Redis still has the batch.
      def exists? = !@fields.empty?

      # The batch's description, or nil.
      def description = @fields["description"]

      # Jobs added to the batch.
      def total = @fields["total"].to_i

      # Jobs of the batch that failed at least once and have not succeeded since.
      def failures = @failure_count

      # The jids of those jobs.
      def failed_jids = full.failed.keys

      # The jids of the batch's dead jobs.
      def dead_jids = full.dead

      # The parent batch's bid, or nil.
      def parent_bid = @fields["parent"]

      # The bids of the child batches.
      def child_bids = full.kids

      # The queue the batch's callback jobs go to.
      def callback_queue = @fields["callback_queue"]

      # Whether every job ran once and every child batch is complete (on_complete fired).
      def complete? = @fields.key?("complete_at")

      # Whether every job succeeded and every child batch too (on_success fired).
      def success? = @fields.key?("success_at")

      # Whether a job of the batch died (on_death fired).
      def death? = @fields.key?("death_at")

      # When the batch was created (a Time).
      def created_at = time("created_at")

      # When every job ran once (a Time, or nil).
      def complete_at = time("complete_at")

      # When every job succeeded (a Time, or nil).
      def success_at = time("success_at")

      # When the first job of the batch (or of a child batch) died.
      def death_at = time("death_at")

      # The registered callbacks: event, class, options, the callback job's
      # jid and queue, and when the event fired (nil: not yet).
      def callbacks
        FIRED.flat_map do |event, field|
          stored = @fields["on_#{event}"] or next []
          JSON.parse(stored).map do |jid, head|
            _bid, _event, target, options = JSON.parse("#{head}}")["args"]
            {"event" => event, "class" => target, "options" => options, "jid" => jid,
             "queue" => callback_queue, "fired_at" => time(field)}
          end
        end
      end

      # Each failing job's last error: jid, class, error_class, error_message,
      # failed_at (a Time), retry_count, and dead (true once it died).
      def failure_info
        full.failed.map { |jid, raw| self.class.failure_entry(jid, raw, @dead.include?(jid)) }
      end

      # Plain data for dashboards and JSON APIs.
      def to_h
        {
          "bid" => @bid, "description" => description, "total" => total, "pending" => pending,
          "failures" => failures, "dead" => dead_count, "complete" => complete?, "success" => success?,
          "created_at" => created_at&.to_f, "complete_at" => complete_at&.to_f, "success_at" => success_at&.to_f,
          "parent_bid" => parent_bid, "child_bids" => child_bids
        }
      end

      protected

      attr_reader :failed, :dead, :kids

      private

      # This status with the jids and errors a summary did not read.
      def full = @summary ? reload : self

      def read(replies, summary)
        @fields, @pending, failed, dead, kids = replies
        @summary = summary
        if summary
          @failure_count, @dead_count, @child_count = failed, dead, kids
        else
          @failed, @dead, @kids = failed, dead, kids
          @failure_count, @dead_count, @child_count = failed.size, dead.size, kids.size
        end
        self
      end

      def time(field)
        value = @fields[field] or return nil
        Payload.to_time(Integer(value))
      end
    end
  end
end
