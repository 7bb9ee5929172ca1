# frozen_string_literal: true

module Deckhand
  class Client
    # The times of a bulk push's jobs: "at" (one time for all, or one per
    # job; nil in the Array pushes that job now), or each a random time
    # within "spread_interval" seconds from now (at least 5, as in Sidekiq:
    # spreading finer than a scheduler's poll spreads nothing). Checked
    # before anything is pushed.
    #
    #   BulkTimes.new([t1, nil], nil).for(2) { |at| at }   # => [t1, nil]
    #   BulkTimes.new(nil, 60).for(3) { |at| at }         # => three times within the next minute
    class BulkTimes # :nodoc:
      SPREAD_FLOOR = 5.0

      def initialize(at, spread)
        raise InvalidJob, "Only one of 'at' or 'spread_interval' can be given to push_bulk" if at && spread
        @at = at
        @spread = spread
      end

      # One time per job (each through the block, which makes a past time
      # nil), or nil when the jobs go now.
      def for(count, &scheduled)
        return spread(count) if @spread
        return nil if @at.nil?
        check_at!
        return Array.new(count) { scheduled.call(@at) } unless @at.is_a?(Array)
        raise InvalidJob, "push_bulk \"at\" has #{@at.size} times for #{count} jobs; give one per job or a single time" unless @at.size == count
        @at.map { |time| time && scheduled.call(time) }
      end

      private

      # is_a?, not ===: an ActiveSupport::Duration says it is a Numeric only to is_a?.
      def check_at!
        return if @at.is_a?(Numeric)
        return if @at.is_a?(Array) && !@at.empty? && @at.all? { |time| time.nil? || time.is_a?(Numeric) }
        raise InvalidJob, "push_bulk \"at\" must be a Numeric or an Array of Numeric timestamps (epoch seconds), got #{@at.inspect[0, 80]}"
      end

      def spread(count)
        unless @spread.is_a?(Numeric) && @spread.positive?
          raise InvalidJob, "push_bulk \"spread_interval\" must be a positive Numeric (seconds), got #{@spread.inspect[0, 80]}"
        end
        now = Time.now.to_f # the application's now, which a test may freeze, as a time given to "at" is
        seconds = [@spread.to_f, SPREAD_FLOOR].max
        Array.new(count) { now + rand * seconds }
      end
    end
  end
end
