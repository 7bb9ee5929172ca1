# frozen_string_literal: true

module Deckhand
  class Swarm
    # The supervisor's record of its workers: one Slot per place in the
    # swarm, plus the replaced workers still finishing their jobs. Reaps the
    # ones that exit and says what happened to them.
    class Roster # :nodoc:
      attr_reader :slots

      def initialize(count, logger)
        @slots = Array.new(count) { |i| Slot.new(i) }
        @retiring = {} # pid => slot index
        @logger = logger
        @stopping = false
      end

      # From here on an exit is expected: nothing is restarted or warned about.
      def stopping! = @stopping = true

      def pids = @slots.filter_map(&:pid) + @retiring.keys

      def empty? = pids.empty?

      def signal_all(name) = pids.each { |pid| signal(pid, name) }

      def signal(pid, name)
        ::Process.kill(name, pid)
      rescue Errno::ESRCH
        nil
      end

      # The slot's worker is being replaced: it goes on finishing its jobs
      # apart, and the slot is free for a new one.
      def retire(slot)
        @retiring[slot.pid] = slot.index
        signal(slot.pid, "TERM")
        slot.released
      end

      # Only our workers: the supervisor may have other children (a private
      # development Redis, for one).
      def reap(now)
        pids.each do |pid|
          _, status = ::Process.waitpid2(pid, ::Process::WNOHANG)
          exited(pid, status, now) if status
        rescue Errno::ECHILD
          exited(pid, nil, now)
        end
      end

      private

      def exited(pid, status, now)
        if (index = @retiring.delete(pid))
          return @logger.info("swarm: worker #{index} (pid #{pid}) replaced and stopped (#{describe(status)})")
        end
        slot = @slots.find { |s| s.pid == pid } or return
        lived = slot.age(now)
        delay = slot.exited(now)
        return if @stopping
        wait = delay.zero? ? "restarting it" : "restarting it in #{delay}s (#{slot.failures} failures at boot in a row)"
        @logger.warn("swarm: worker #{slot.index} (pid #{pid}) exited (#{describe(status)}) after #{lived.round(1)}s; #{wait}")
      end

      def describe(status)
        return "status unknown" unless status
        status.signaled? ? "signal #{Signal.signame(status.termsig)}" : "status #{status.exitstatus}"
      end
    end
  end
end
