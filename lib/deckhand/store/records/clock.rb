# frozen_string_literal: true

module Deckhand
  class Store
    module Records
      # The fleet's one clock: Redis' own (TIME), as this process can tell it
      # without asking each time. Times that different hosts write and others
      # compare (heartbeats, due times, retry scores, ticks, expiries) are
      # written and compared by it, so a host whose clock is wrong (a VM
      # resumed from suspend, a container without NTP) neither takes live
      # processes' jobs nor runs scheduled jobs early (docs/internals.md, "One
      # clock").
      #
      # A measurement (one TIME round trip, or a TIME a pipeline carried) pins
      # Redis' time to this host's monotonic clock, halfway through the round
      # trip; between measurements Redis' time is that anchor plus the
      # monotonic time since, so a jump of the host's wall clock does not move
      # it. A host within SYNCED of Redis reads its own wall clock: the
      # difference is noise, and a time an application passed (perform_at)
      # is then written exactly as given.
      #
      #   clock = store.clock
      #   clock.measure        # => 0.0004: seconds Redis' clock is ahead of this host's
      #   clock.now            # => 1732000000.123 (epoch seconds by Redis' clock)
      #   clock.now_ms         # => 1732000000123
      #   clock.offset         # => 0.0004, or nil before the first measurement
      #   clock.stale?         # => true when the last measurement is older than REFRESH
      class Clock # :nodoc:
        # Closer than this to Redis' clock, a host's own wall clock is used.
        SYNCED = 0.1
        # A measurement older than this is measured again by those who can
        # afford a round trip (a pushing client, the data API); servers measure
        # with every heartbeat.
        REFRESH = 60.0

        def initialize(store)
          @store = store
          @anchor = nil # [Redis' time, this host's monotonic time], seconds
          @lock = Mutex.new
        end

        # One TIME round trip; returns the offset.
        def measure
          sent = monotonic
          reply = @store.call("TIME")
          observe(reply, sent, monotonic)
        end

        # Records a TIME reply (["1732000000", "123456"]) that left between
        # `sent` and `received` (monotonic seconds); returns the offset. A
        # round trip slower than 2 * SYNCED could not tell a synchronized host
        # from a skewed one: it replaces only a stale anchor.
        def observe(reply, sent, received)
          redis = Integer(reply[0]) + (Integer(reply[1]) / 1_000_000.0)
          @lock.synchronize do
            @anchor = [redis, (sent + received) / 2.0].freeze if received - sent <= 2 * SYNCED || stale?
          end
          offset
        end

        # Epoch seconds by Redis' clock, as well as this process knows it; this
        # host's own clock until the first measurement.
        def now
          real = realtime
          anchor = @anchor or return real
          estimate = anchor[0] + (monotonic - anchor[1])
          ((estimate - real).abs < SYNCED) ? real : estimate
        end

        # What #now adds to this host's wall clock: the offset, or 0.0 while
        # it is under SYNCED or unknown. For a time this host stamped itself,
        # turned into the fleet's: `realtime + clock.correction`.
        def correction
          off = offset or return 0.0
          (off.abs < SYNCED) ? 0.0 : off
        end

        def now_ms = (now * 1000).floor

        # Seconds Redis' clock is ahead of this host's (negative: behind), or
        # nil before the first measurement.
        def offset
          anchor = @anchor or return nil
          anchor[0] + (monotonic - anchor[1]) - realtime
        end

        def stale? = @anchor.nil? || monotonic - @anchor[1] > REFRESH

        # Measures when the last measurement is stale; a Redis failure leaves
        # the clock as it was (the caller's own command will meet it).
        def refresh
          measure if stale?
        rescue Deckhand::RedisError
          nil
        end

        private

        def realtime = ::Process.clock_gettime(::Process::CLOCK_REALTIME)

        def monotonic = Monotonic.now
      end
    end
  end
end
