# frozen_string_literal: true

module Deckhand
  class Swarm
    # One of the swarm's K places for a worker process: the pid in it now, when
    # it started, and how often workers in it have died while booting, which
    # sets how long the supervisor waits before the next try.
    class Slot # :nodoc:
      # A worker that dies sooner than this after its fork counts as dying at boot.
      BOOT_WINDOW = 10.0
      BACKOFF_BASE = 0.5
      BACKOFF_MAX = 30.0

      attr_reader :index, :pid, :started_at, :failures, :restart_at

      def initialize(index)
        @index = index
        @pid = nil
        @failures = 0
        @restart_at = nil
      end

      def started(pid, now)
        @pid = pid
        @started_at = now
        @restart_at = nil
      end

      def running? = !@pid.nil?

      # The worker exited on its own (crash, kill, or a stop from the
      # dashboard). Returns the delay before the next one: none after a worker
      # that ran a while, doubling from BACKOFF_BASE while workers keep dying at boot.
      def exited(now)
        lived = now - @started_at
        @pid = nil
        @failures = (lived < BOOT_WINDOW) ? @failures + 1 : 0
        delay = @failures.zero? ? 0.0 : [BACKOFF_BASE * (2**(@failures - 1)), BACKOFF_MAX].min
        @restart_at = now + delay
        delay
      end

      # The supervisor replaced the worker on purpose (memory): no backoff.
      def released
        @pid = nil
        @restart_at = nil
      end

      def due?(now) = @pid.nil? && !@restart_at.nil? && now >= @restart_at

      def age(now) = @started_at ? now - @started_at : 0.0
    end
  end
end
