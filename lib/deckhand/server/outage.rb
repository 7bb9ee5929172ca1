# frozen_string_literal: true

module Deckhand
  module Server
    # How a background loop lives through Redis failing: it waits a capped,
    # growing delay between attempts and says so in the log without flooding
    # it. A passing fault (no connection, a timeout) is logged once per outage
    # and once more when Redis is back; a refusal that needs a human (out of
    # memory, a key of the wrong type, a read-only replica) is logged with the
    # key and the fix, again at least once a minute until it is fixed.
    #
    #   outage = Outage.new(logger, "heartbeat")
    #   begin
    #     beat
    #     outage.over
    #   rescue Deckhand::RedisError => e
    #     sleep outage.failed(e)
    #   end
    class Outage
      DELAYS = [0.05, 0.1, 0.25, 0.5, 1, 2, 5].freeze
      REPEAT = 60 # seconds between log lines about a refusal that persists

      def initialize(logger, what, delays: DELAYS, repeat: REPEAT)
        @logger = logger
        @what = what
        @delays = delays
        @repeat = repeat
        @failures = 0
        @logged_at = nil
      end

      # Records a failure; returns the seconds to wait before the next attempt.
      def failed(error)
        now = Monotonic.now
        if error.respond_to?(:transient?) && error.transient?
          @logger.warn("#{@what}: #{error.message}; retrying") if @failures.zero?
        elsif @logged_at.nil? || now - @logged_at >= @repeat
          @logger.error("#{@what}: #{error.message}; retrying until this is fixed")
          @logged_at = now
        end
        delay = @delays[@failures] || @delays.last
        @failures += 1
        delay
      end

      # Records a success; logs the recovery after a failure.
      def over
        return if @failures.zero?
        @logger.info("#{@what}: Redis answers again after #{@failures} failed attempts")
        @failures = 0
        @logged_at = nil
      end
    end
  end
end
