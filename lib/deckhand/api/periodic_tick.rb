# frozen_string_literal: true

module Deckhand
  class API
    # One tick of a periodic entry as its history keeps it: what became of
    # it, as far as anyone has told (the leader enqueued it or skipped it;
    # the server that runs its job says running, succeeded or failed). Times
    # are Redis' (the fleet's clock).
    #
    #   tick = api.periodic.fetch("nightly").history.first
    #   tick.at          # => Time the tick was due (its scheduled time)
    #   tick.state       # => "enqueued", "running", "succeeded", "failed" or "skipped"
    #   tick.jid         # => its job's jid (nil when skipped)
    #   tick.error       # => "Net::ReadTimeout" when failed
    #   tick.reason      # => "paused" when skipped; why it waits again when enqueued after a run
    #   tick.started_at  # => Time its job started, once running
    #   tick.updated_at  # => Time of the state
    #   tick.duration    # => seconds it ran, once it finished
    class PeriodicTick
      # The states a tick's record can hold; any other reads "unknown".
      STATES = %w[enqueued running succeeded failed skipped].freeze

      attr_reader :state, :jid, :queue, :error, :reason, :retry_count

      def initialize(record)
        @record = record
        @state = STATES.include?(record["state"]) ? record["state"] : "unknown"
        @jid = text("jid")
        @queue = text("queue")
        @error = text("error")
        @reason = text("reason")
        @retry_count = record["retry_count"].is_a?(Integer) ? record["retry_count"] : nil
      end

      # When the tick fell due (Redis' clock).
      #
      # @return [Time, nil]
      def at = time("tick")

      # When its job started, once it ran.
      #
      # @return [Time, nil]
      def started_at = time("started_at")

      # When the tick reached its state.
      #
      # @return [Time, nil]
      def updated_at = time("at")

      # True once its job succeeded or failed.
      #
      #   entry.history.count(&:finished?)
      #
      # @return [Boolean]
      def finished? = %w[succeeded failed].include?(@state)

      # Seconds its job ran, once it finished.
      #
      # @return [Float, nil]
      def duration
        return nil unless finished? && started_at && updated_at
        [updated_at - started_at, 0.0].max
      end

      private

      def text(field) = @record[field].is_a?(String) ? @record[field] : nil

      def time(field)
        value = @record[field]
        (value.is_a?(Numeric) && value.positive?) ? Time.at(value) : nil
      end
    end
  end
end
