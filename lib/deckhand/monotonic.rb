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
  end
end
