# frozen_string_literal: true

module Deckhand
  module Limiter
    # What every limiter shares: its name, validation, the store it uses and
    # what a job does when it is over the limit (backoff, reschedule).
    # Subclasses implement #acquire (returns a token or raises OverLimit) and
    # #release.
    #
    #   limiter.within_limit { call_the_api }
    class Base
      # Seconds until a job over the limit runs again, unless told (`reschedule:`).
      RESCHEDULE = 20
      # Seconds of each period named by a Symbol.
      PERIODS = {second: 1, minute: 60, hour: 3600, day: 86_400}.freeze
      # Bytes of a limiter's name at most.
      MAX_NAME = 200

      attr_reader :name, :size, :wait_timeout, :backoff, :reschedule

      def self.policy!(backoff, reschedule) # :nodoc:
        unless backoff.nil? || backoff.respond_to?(:call)
          raise ArgumentError, "backoff must be a proc taking (overrated, job) and returning seconds, got #{backoff.inspect}"
        end
        unless reschedule.is_a?(Integer) && reschedule >= 0
          raise ArgumentError, "reschedule must be an Integer of times (0 or more), got #{reschedule.inspect}"
        end
        [backoff, reschedule]
      end

      def initialize(name, size, wait_timeout:, backoff:, reschedule:, store:)
        @name = name!(name)
        @size = positive!("size", size, Integer)
        @wait_timeout = number!("wait_timeout", wait_timeout)
        @backoff, @reschedule = self.class.policy!(backoff, reschedule)
        @store = store
      end

      # "concurrent", "bucket", "window", "leaky" or "points".
      def kind = self.class.name.split("::").last.downcase

      # Runs the block once the limit allows it; raises OverLimit when it
      # does not within wait_timeout. Returns the block's value.
      def within_limit
        token = acquire
        begin
          yield
        ensure
          release(token)
        end
      end

      private

      def store = @store || Deckhand.config.store

      def release(_token) = nil

      def over!(ms) = raise(OverLimit.new(self, ms / 1000.0))

      # Tries `check` (given the ms waited so far, or nil, and whether it is
      # the last try) until it passes; between tries it waits (`pause`) as
      # long as the script said, while wait_timeout allows.
      def try_until_deadline(pause: ->(seconds) { sleep seconds })
        started = now
        waited = nil
        loop do
          left = @wait_timeout - (now - started)
          ok, ms = yield(waited, left <= 0)
          return true if ok
          over!(ms) if left <= 0
          pause.call([left, ms / 1000.0].min)
          waited = ((now - started) * 1000).round
        end
      end

      def period!(per)
        return per if per.is_a?(Numeric) && per.positive?
        PERIODS.fetch(per) do
          raise ArgumentError, "per must be :second, :minute, :hour, :day or a number of seconds, got #{per.inspect}"
        end
      end

      def name!(name)
        name = name.to_s if name.is_a?(Symbol)
        unless name.is_a?(String) && !name.empty? && name.size <= MAX_NAME && !name.match?(/\s/)
          raise ArgumentError, "a limiter name must be a non-empty String without spaces, up to #{MAX_NAME} characters " \
            "(like \"stripe-\#{account_id}\"); got #{name.inspect}"
        end
        name.dup.freeze
      end

      def positive!(what, value, type)
        return value if value.is_a?(type) && value.positive?
        raise ArgumentError, "#{kind} limiter #{what} must be a positive #{type}, got #{value.inspect}"
      end

      def number!(what, value)
        return value if value.is_a?(Numeric) && value >= 0
        raise ArgumentError, "#{what} must be a number of seconds (0 or more), got #{value.inspect}"
      end

      def now = Monotonic.now
    end
  end
end
