# frozen_string_literal: true

module Deckhand
  module Limiter
    # What the limiters counted over a period share (bucket, window, leaky):
    # `size` per `per`, and by default no waiting (over the limit raises at
    # once, so a job is rescheduled instead of holding a thread).
    #
    #   Deckhand::Limiter.window("search", 10, :second, wait_timeout: 0.5)
    class Rate < Base
      attr_reader :period

      def initialize(name, size, per, wait_timeout: 0, backoff: nil, reschedule: RESCHEDULE, store: nil)
        super(name, size, wait_timeout: wait_timeout, backoff: backoff, reschedule: reschedule, store: store)
        @period = period!(per)
        @period_ms = (@period * 1000).round
      end

      private

      def acquire
        try_until_deadline { |waited, last| check(waited, last) }
        nil
      end
    end
  end
end
