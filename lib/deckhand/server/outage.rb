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
    #
    # or, in a loop that waits on a Sleeper, `outage.attempt(sleeper) { beat }`.
    #
    # A write that must not be given up (a job's outcome, what its batch or
    # workflow is told of it) waits Redis out with Outage.wait_out.
    class Outage
      DELAYS = [0.05, 0.1, 0.25, 0.5, 1, 2, 5].freeze
      REPEAT = 60 # seconds between log lines about a refusal that persists

      # Runs the block until it returns without a Deckhand::RedisError and
      # returns what it returned; the block is told whether a try failed
      # before (a write found done was then done by that try, its reply
      # lost). Never gives up: the job stays in flight meanwhile. The caller
      # keeps the shutdown interrupt masked around its writes; only the wait
      # between tries lets it through, so a shutdown hands the job back
      # rather than wait for Redis.
      #
      #   Outage.wait_out(logger, "recording a batch job's outcome") { |again| tracker.success(bid, jid) }
      def self.wait_out(logger, what)
        outage = nil
        begin
          result = yield(!outage.nil?)
          outage&.over
          result
        rescue Deckhand::RedisError => e
          outage ||= new(logger, what)
          delay = outage.failed(e)
          Thread.handle_interrupt(Deckhand::Shutdown => :immediate) { sleep delay }
          retry
        end
      end

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

      # One attempt of a background loop's work: the block, then #over; when
      # it raises a Deckhand::RedisError, the failure is recorded and its
      # delay slept on `sleeper` (a Sleeper: stopping it cuts the wait
      # short). Any other error goes to the caller.
      #
      #   @outage.attempt(@sleeper) { tick }
      def attempt(sleeper)
        yield
        over
      rescue Deckhand::RedisError => e
        sleeper.sleep(failed(e))
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
