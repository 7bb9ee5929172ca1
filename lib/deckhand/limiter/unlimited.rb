# frozen_string_literal: true

module Deckhand
  module Limiter
    # Never limits and never talks to Redis: swap it in for tests or for a
    # plan with no limit.
    #
    #   API = Rails.env.test? ? Deckhand::Limiter.unlimited : Deckhand::Limiter.window("api", 10, :second)
    #   API.within_limit { call }
    class Unlimited
      # "unlimited".
      def name = "unlimited"

      # "unlimited".
      def kind = "unlimited"

      # Infinity.
      def size = Float::INFINITY

      # nil: never over the limit.
      def backoff = nil

      # As other limiters' default.
      def reschedule = Base::RESCHEDULE

      # Yields a handle (points_used is accepted and ignored) and returns the block's value.
      def within_limit(estimate: nil) = yield(Points::Handle.new(nil))
    end
  end
end
