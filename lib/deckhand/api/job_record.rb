# frozen_string_literal: true

require "json"

module Deckhand
  class API
    # One job as stored in Redis: the raw JSON and what it says, read leniently
    # (jobs pushed by any Sidekiq-compatible client, in any version, or not a
    # job at all) so a dashboard can always show it.
    #
    #   record = JobRecord.new(raw)
    #   record.display_class   # => "WelcomeJob" (the job inside an Active Job wrapper)
    #   record.enqueued_at     # => Time, from Integer ms or Float seconds
    #   record.backtrace       # => ["app/jobs/welcome_job.rb:12:in `perform'", ...]
    class JobRecord
      WRAPPERS = %w[ActiveJob::QueueAdapters::DeckhandAdapter::JobWrapper ActiveJob::QueueAdapters::SidekiqAdapter::JobWrapper
        Sidekiq::ActiveJob::Wrapper].freeze

      attr_reader :raw, :item

      def initialize(raw)
        @raw = raw
        @item = parse(raw)
      end

      # True when the stored bytes are not a job object.
      def corrupt? = @corrupt || @item.key?("raw_encoding")

      def jid = string("jid")

      # The job's tags (Sidekiq's "tags" option): Strings, [] when it has none.
      def tags
        value = @item["tags"]
        value.is_a?(Array) ? value.map(&:to_s) : []
      end

      def klass = string("class")

      def queue = string("queue")

      def display_class = wrapped? ? (string("wrapped") || active_job["job_class"].to_s) : klass.to_s

      def args = @item["args"].is_a?(Array) ? @item["args"] : []

      # The arguments to show: an encrypted secret bag as "[encrypted]".
      def display_args
        return active_job["arguments"] if wrapped? && active_job["arguments"].is_a?(Array)
        Encryption.mask(args)
      end

      def created_at = time("created_at")

      def enqueued_at = time("enqueued_at")

      def failed_at = time("failed_at")

      def retried_at = time("retried_at")

      def retry_count = @item["retry_count"].is_a?(Integer) ? @item["retry_count"] : nil

      def error_class = string("error_class")

      def error_message = string("error_message")

      def error? = !error_class.nil?

      def backtrace = Payload::Backtrace.expand(@item["error_backtrace"])

      # Seconds this job has waited in its queue.
      def latency(now = Time.now)
        at = enqueued_at or return 0.0
        [now.to_f - at.to_f, 0.0].max
      end

      def time(field) = Payload.to_time(@item[field])

      def [](field) = @item[field]

      private

      def parse(raw)
        item = Payload::HugeNumbers.parse(raw) # a refused job's number beyond a Float reads as Infinity
        return item if item.is_a?(Hash)
        @corrupt = true
        {}
      rescue JSON::ParserError, TypeError
        @corrupt = true
        {}
      end

      def string(field) = @item[field]&.to_s

      # Active Job's adapters (Deckhand's, Sidekiq's) name the real class in "wrapped".
      def wrapped? = WRAPPERS.include?(klass) || @item["wrapped"].is_a?(String)

      def active_job
        first = args.first
        first.is_a?(Hash) ? first : {}
      end
    end
  end
end
