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
      # The Active Job wrapper classes whose jobs #display_class names by the job they wrap.
      WRAPPERS = %w[ActiveJob::QueueAdapters::DeckhandAdapter::JobWrapper ActiveJob::QueueAdapters::SidekiqAdapter::JobWrapper
        Sidekiq::ActiveJob::Wrapper].freeze

      attr_reader :raw, :item

      def initialize(raw)
        @raw = raw
        @item = parse(raw)
      end

      # True when the stored bytes are not a job object.
      def corrupt? = @corrupt || @item.key?("raw_encoding")

      # The job's id, or nil.
      def jid = string("jid")

      # The job's tags (Sidekiq's "tags" option): Strings, [] when it has none.
      def tags
        value = @item["tags"]
        value.is_a?(Array) ? value.map(&:to_s) : []
      end

      # The job's class name as pushed (for Active Job: the wrapper's).
      def klass = string("class")

      # The queue the job was pushed to.
      def queue = string("queue")

      # The class name to show: the wrapped Active Job class for a wrapped job, else #klass.
      def display_class = wrapped? ? (string("wrapped") || active_job["job_class"].to_s) : klass.to_s

      # The job's arguments (an empty Array when they are not an Array).
      def args = @item["args"].is_a?(Array) ? @item["args"] : []

      # The arguments to show: an encrypted secret bag as "[encrypted]".
      def display_args
        return active_job["arguments"] if wrapped? && active_job["arguments"].is_a?(Array)
        Encryption.mask(args)
      end

      # When the job was first pushed (a Time, or nil).
      def created_at = time("created_at")

      # When the job last entered its queue (a Time, or nil).
      def enqueued_at = time("enqueued_at")

      # When the job first failed (a Time, or nil).
      def failed_at = time("failed_at")

      # When the job was last retried (a Time, or nil).
      def retried_at = time("retried_at")

      # Retries so far, or nil before the first failure.
      def retry_count = @item["retry_count"].is_a?(Integer) ? @item["retry_count"] : nil

      # The class of the job's last error, or nil.
      def error_class = string("error_class")

      # The message of the job's last error, or nil.
      def error_message = string("error_message")

      # Whether the job carries an error (it failed at least once).
      def error? = !error_class.nil?

      # The lines of the job's last error's backtrace it kept, or nil.
      def backtrace = Payload::Backtrace.expand(@item["error_backtrace"])

      # Seconds this job has waited in its queue.
      def latency(now = Time.now)
        at = enqueued_at or return 0.0
        [now.to_f - at.to_f, 0.0].max
      end

      # The payload's timestamp `field` as a Time, whether written in milliseconds (Sidekiq 8) or seconds (Sidekiq 7).
      def time(field) = Payload.to_time(@item[field])

      # A field of the job's payload as it is in Redis.
      #
      #   record["tenant"]   # => 42
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
