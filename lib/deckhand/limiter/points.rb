# frozen_string_literal: true

module Deckhand
  module Limiter
    # A budget of `size` points refilled by `refill` points per period, for
    # APIs that charge each call by its cost (Shopify's GraphQL). A check
    # spends an estimate up front; the block may report the real cost and the
    # difference is given back (or spent) in one more round trip.
    #
    #   SHOPIFY = Deckhand::Limiter.points("shopify", 1_000, refill: 50, per: :second)
    #   SHOPIFY.within_limit(estimate: 50) do |handle|
    #     response = client.query(q)
    #     handle.points_used(response.cost)
    #   end
    class Points < Base
      # Given to the block: reports what the call really cost.
      Handle = Struct.new(:used) do
        # Reports what the call really cost, in points.
        def points_used(points)
          unless points.is_a?(Numeric) && points >= 0
            raise ArgumentError, "points_used takes a number of points (0 or more), got #{points.inspect}"
          end
          self.used = points
        end
      end

      attr_reader :refill, :period

      def initialize(name, size, refill:, per:, wait_timeout: 0, backoff: nil, reschedule: RESCHEDULE, store: nil)
        super(name, size, wait_timeout: wait_timeout, backoff: backoff, reschedule: reschedule, store: store)
        @refill = positive!("refill", refill, Numeric)
        @period = period!(per)
        @period_ms = (@period * 1000).round
      end

      # Spends `estimate` points, runs the block with a Handle, then settles the real cost.
      #
      # @raise [Limiter::OverLimit] when the points are not there within wait_timeout
      def within_limit(estimate: 1)
        unless estimate.is_a?(Numeric) && estimate.positive? && estimate <= @size
          raise ArgumentError, "estimate must be a positive number of points up to the limiter's #{@size}, got #{estimate.inspect}"
        end
        script = Store::Scripts::LimitPoints.new(store)
        try_until_deadline do |waited, last|
          script.take(@name, @size, refill: @refill, period_ms: @period_ms, amount: estimate, waited_ms: waited, last: last)
        end
        handle = Handle.new(nil)
        begin
          yield handle
        ensure
          if handle.used && handle.used != estimate
            script.adjust(@name, @size, refill: @refill, period_ms: @period_ms, amount: estimate - handle.used)
          end
        end
      end
    end
  end
end
