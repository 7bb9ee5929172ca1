# frozen_string_literal: true

module Deckhand
  # The pause between rounds of a background loop (heartbeat, scheduler,
  # reaper, a component's restart), which #stop cuts short so shutdown never
  # waits out an interval.
  #
  #   sleeper = Sleeper.new
  #   beat while sleeper.sleep(5)   # a component's #run
  #   sleeper.stop                  # from #wake: the loop ends now, not in up to 5 s
  class Sleeper
    def initialize
      @lock = Mutex.new
      @wake = ConditionVariable.new
      @stopped = false
    end

    # Sleeps up to `seconds`; returns false once stopped.
    def sleep(seconds)
      @lock.synchronize do
        @wake.wait(@lock, seconds) unless @stopped
        !@stopped
      end
    end

    def stop
      @lock.synchronize do
        @stopped = true
        @wake.signal
      end
    end

    def stopped? = @stopped
  end
end
