# frozen_string_literal: true

module Deckhand
  module Server
    module Run
      # A job that raised Deckhand::Limiter::OverLimit (or an error class marked
      # with Limiter.over_limit_error) is not failing: the API it calls is busy.
      # It goes back to the schedule set, due after the limiter's backoff, its
      # `overrated` count kept in the payload, up to the limiter's `reschedule`
      # times; after that it takes the normal retry path. Its retry count is
      # left alone.
      #
      #   over_limit = OverLimitHandler.new(retries: retry_handler, logger: logger)
      #   over_limit.call(unit, job, error)   # => :rescheduled, or nil for the retry path
      class OverLimitHandler # :nodoc:
        def self.default_backoff(overrated) = (300 * overrated) + rand(300) + 1

        def initialize(retries:, logger:)
          @retries = retries
          @logger = logger
        end

        def call(unit, job, error)
          overrated = Limiter.next_reschedule(job, error) or return nil
          backoff, limit = Limiter.policy_for(error)
          job["overrated"] = overrated
          delay = delay(backoff, overrated, job)
          @retries.reschedule(unit, job, delay: delay)
          @logger.info("over limit (#{error.class}), rescheduled in #{delay.round}s (#{overrated} of #{limit})") if @logger.info?
          :rescheduled
        end

        private

        def delay(backoff, overrated, job)
          return self.class.default_backoff(overrated) unless backoff
          seconds = backoff.call(overrated, job)
          return seconds if seconds.is_a?(Numeric) && seconds >= 0
          @logger.error("limiter backoff returned #{seconds.inspect}, not seconds; using the default")
          self.class.default_backoff(overrated)
        rescue Deckhand::AppError => e # the application's block, whatever it raises
          @logger.error("limiter backoff raised #{e.class}: #{e.message}; using the default")
          self.class.default_backoff(overrated)
        end
      end
    end
  end
end
