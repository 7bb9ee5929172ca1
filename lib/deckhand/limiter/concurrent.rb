# frozen_string_literal: true

module Deckhand
  module Limiter
    # At most `size` holders at once across every process. A caller over the
    # limit blocks inside Redis (BLPOP on the limiter's wake list, which each
    # release feeds) for up to wait_timeout seconds, then raises OverLimit. A
    # holder whose process died is reclaimed lock_timeout seconds after it
    # took its slot, so lock_timeout must exceed the longest block.
    #
    #   STRIPE = Deckhand::Limiter.concurrent("stripe", 5, wait_timeout: 5, lock_timeout: 30)
    #   STRIPE.within_limit { Stripe::Charge.create(amount: 100) }
    class Concurrent < Base
      attr_reader :lock_timeout

      def initialize(name, size, wait_timeout: 5, lock_timeout: 30, backoff: nil, reschedule: RESCHEDULE, store: nil)
        super(name, size, wait_timeout: wait_timeout, backoff: backoff, reschedule: reschedule, store: store)
        @lock_timeout = number!("lock_timeout", lock_timeout)
        raise ArgumentError, "lock_timeout must be more than 0 seconds, got #{lock_timeout.inspect}" unless lock_timeout.positive?
        @lock_ms = (lock_timeout * 1000).ceil
      end

      private

      def acquire
        holder = SecureRandom.hex(8)
        script = Store::Scripts::LimitConcurrent.new(store)
        wait = ->(seconds) { Store::Limits.wait_release(store, @name, seconds) }
        try_until_deadline(pause: wait) do |waited, last|
          script.call(@name, @size, holder: holder, lock_ms: @lock_ms, waited_ms: waited, last: last)
        end
        holder
      end

      def release(holder)
        Store::Scripts::LimitRelease.new(store).call(@name, @size, holder: holder, lock_ms: @lock_ms)
      end
    end
  end
end
