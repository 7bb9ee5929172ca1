# frozen_string_literal: true

module Deckhand
  # The host's monotonic clock, in seconds: what durations, deadlines and
  # pauses inside one process are measured with, since a jump of the wall
  # clock (NTP, a resumed VM) never moves it. A time another host compares
  # is Redis' instead (Store::Records::Clock, docs/internals.md "One clock").
  #
  #   started = Deckhand::Monotonic.now
  #   sleep 0.1
  #   Deckhand::Monotonic.now - started   # => 0.100...
  module Monotonic
    def self.now = ::Process.clock_gettime(::Process::CLOCK_MONOTONIC)

    # Milliseconds since `started` (a reading of #now), unrounded, so the
    # metrics of sub-millisecond jobs do not all read 0.
    #
    #   Deckhand::Monotonic.ms_since(started)   # => 100.2...
    def self.ms_since(started) = (now - started) * 1000.0
  end
end
