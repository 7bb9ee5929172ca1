# frozen_string_literal: true

module Deckhand
  module Limiter
    # Raised by within_limit when the limit is reached and waiting would take
    # longer than the limiter's wait_timeout. Inside a job the server
    # reschedules the job (docs/limits.md).
    #
    #   begin
    #     STRIPE.within_limit { charge }
    #   rescue Deckhand::Limiter::OverLimit => e
    #     e.limiter.name   # => "stripe"
    #     e.retry_after    # => seconds until a check may pass (an estimate)
    #   end
    class OverLimit < Deckhand::Error
      attr_reader :limiter, :retry_after

      def initialize(limiter, retry_after)
        @limiter = limiter
        @retry_after = retry_after
        super("#{limiter.kind} limiter #{limiter.name.inspect} is over its limit of #{limiter.size}; " \
          "a check may pass in about #{retry_after.round(3)}s")
      end
    end
  end
end
