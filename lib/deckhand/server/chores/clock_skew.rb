# frozen_string_literal: true

module Deckhand
  module Server
    module Chores
      # Says in the log when this host's clock is more than a second off
      # Redis' (the heartbeat measures it each beat): once when it begins,
      # again every REPEAT seconds while it lasts, and once when it ends.
      # Deckhand times what it writes and compares by Redis' clock
      # (Store::Records::Clock) whatever the host's says, so nothing runs early or
      # twice because of it; but the application's own times (logs,
      # `Time.now` in jobs, `perform_at` of a time it computed) are still the
      # host's, and NTP should fix it.
      #
      #   skew = ClockSkew.new(logger)
      #   skew.observe(412.3)   # logs a warning naming the offset and the fix
      #   skew.observe(0.002)   # logs that the clock agrees again
      class ClockSkew
        LIMIT = 1.0
        REPEAT = 600

        def initialize(logger)
          @logger = logger
          @said_at = nil # monotonic time of the last warning while skewed
        end

        # offset: seconds Redis' clock is ahead of this host's, or nil when
        # not yet measured.
        def observe(offset)
          return if offset.nil?
          if offset.abs > LIMIT
            warn(offset) if @said_at.nil? || Monotonic.now - @said_at >= REPEAT
          elsif @said_at
            @said_at = nil
            @logger.info("this host's clock agrees with Redis' again (#{format("%+.3f", -offset)}s)")
          end
        end

        def skewed? = !@said_at.nil?

        private

        def warn(offset)
          @said_at = Monotonic.now
          @logger.warn("this host's clock is #{format("%.1f", offset.abs)}s #{offset.negative? ? "ahead of" : "behind"} " \
            "Redis' clock: Deckhand times its jobs by Redis' clock, so none runs early or twice because of it, but " \
            "the application's own times are off; fix the host's time synchronization (NTP, chrony)")
        end
      end
    end
  end
end
