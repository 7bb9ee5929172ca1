# frozen_string_literal: true

require "securerandom"
require_relative "store/limits"
require_relative "limiter/over_limit"
require_relative "limiter/base"
require_relative "limiter/rate"
require_relative "limiter/concurrent"
require_relative "limiter/bucket"
require_relative "limiter/window"
require_relative "limiter/leaky"
require_relative "limiter/points"
require_relative "limiter/unlimited"

module Deckhand
  # Limits shared by every process on one Redis: gate a block of code so a
  # third-party API or a fragile database sees no more than it can take.
  # Each check is one Redis round trip; names may be dynamic, and a limiter's
  # state expires when it goes unused.
  #
  #   STRIPE  = Deckhand::Limiter.concurrent("stripe", 5, wait_timeout: 5, lock_timeout: 30)
  #   ERP     = Deckhand::Limiter.bucket("erp", 30, :minute)        # clock-aligned buckets
  #   SEARCH  = Deckhand::Limiter.window("search", 10, :second)     # sliding window
  #   GITHUB  = Deckhand::Limiter.leaky("github", 60, :minute)      # bursts of 60, then drips back
  #   SHOPIFY = Deckhand::Limiter.points("shopify", 1_000, refill: 50, per: :second)
  #
  #   STRIPE.within_limit { Stripe::Charge.create(...) }
  #   SHOPIFY.within_limit(estimate: 50) { |handle| handle.points_used(query_cost) }
  #   Deckhand::Limiter.unlimited.within_limit { ... }              # no-op, for tests
  #
  # Over the limit, within_limit raises Deckhand::Limiter::OverLimit. Inside a
  # job the server reschedules the job instead of counting a failure (see
  # docs/limits.md); mark an API's own "too many requests" error to get the
  # same treatment:
  #
  #   Deckhand::Limiter.over_limit_error(Faraday::TooManyRequestsError, reschedule: 10)
  module Limiter
    @errors = {}
    @errors_lock = Mutex.new

    class << self
      # At most `size` blocks run at once across the fleet.
      #
      # @return [Limiter::Concurrent]
      def concurrent(name, size, **options) = Concurrent.new(name, size, **options)

      # At most `size` blocks per clock-aligned `per` (:second, :minute, :hour, :day).
      #
      # @return [Limiter::Bucket]
      def bucket(name, size, per, **options) = Bucket.new(name, size, per, **options)

      # At most `size` blocks in any sliding `per`.
      #
      # @return [Limiter::Window]
      def window(name, size, per, **options) = Window.new(name, size, per, **options)

      # Bursts of `size`, then one block per `per` / `size` as the bucket drips.
      #
      # @return [Limiter::Leaky]
      def leaky(name, size, per, **options) = Leaky.new(name, size, per, **options)

      # A budget of `size` points, `refill` points back per `per`.
      #
      # @return [Limiter::Points]
      def points(name, size, refill:, per:, **options) = Points.new(name, size, refill: refill, per: per, **options)

      # A limiter that never limits, for tests and for switching one off.
      #
      # @return [Limiter::Unlimited]
      def unlimited = Unlimited.new

      # Treats `error_class` (and its subclasses) raised by a job like
      # OverLimit: the job is rescheduled, with these options.
      def over_limit_error(error_class, backoff: nil, reschedule: Base::RESCHEDULE)
        unless error_class.is_a?(Class) && error_class <= Exception
          raise ArgumentError, "over_limit_error takes an exception class, like Faraday::TooManyRequestsError; got #{error_class.inspect}"
        end
        policy = Base.policy!(backoff, reschedule)
        @errors_lock.synchronize { @errors = @errors.merge(error_class => policy).freeze }
        error_class
      end

      # [backoff proc or nil, reschedule limit] when `error` means "over a
      # limit", else nil.
      def policy_for(error)
        return [error.limiter.backoff, error.limiter.reschedule] if error.is_a?(OverLimit)
        @errors.each { |klass, policy| return policy if error.is_a?(klass) }
        nil
      end

      # The count `job`'s next reschedule for `error` would be (its
      # "overrated"), or nil when no limit reschedules it: `error` is no
      # over-limit error, or the job spent its reschedules.
      def next_reschedule(job, error)
        _, limit = policy_for(error)
        return nil unless limit
        overrated = (job["overrated"].is_a?(Integer) ? job["overrated"] : 0) + 1
        overrated unless overrated > limit
      end
    end
  end
end
