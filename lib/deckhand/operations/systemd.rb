# frozen_string_literal: true

require "socket"
require_relative "../component"
require_relative "../sleeper"
require_relative "health"

module Deckhand
  module Operations
    # systemd's Type=notify protocol, spoken by `deckhand` when systemd gives
    # it a NOTIFY_SOCKET: READY=1 once the server runs, STOPPING=1 when it
    # begins a graceful stop, and, when the unit sets WatchdogSec
    # (WATCHDOG_USEC), WATCHDOG=1 at half that interval for as long as the
    # process is live (Health#live): a process whose fetcher or heartbeat
    # stopped, or that cannot reach Redis, stops pinging and systemd restarts
    # it. Sample unit: docs/operations.md.
    #
    #   systemd = Systemd.boot(launcher)   # nil when not run by systemd
    #   systemd&.stopping
    class Systemd < Component
      def self.boot(launcher, env: ENV)
        path = env["NOTIFY_SOCKET"]
        return nil if path.nil? || path.empty?
        require_datagrams!(path)
        new(path, launcher, watchdog_usec: watchdog_usec(env)).ready
      end

      # The protocol needs a UNIX datagram socket, which JRuby cannot open.
      def self.require_datagrams!(path, engine: RUBY_ENGINE)
        return unless engine == "jruby"
        raise ConfigError, "systemd gave this process a NOTIFY_SOCKET (#{path}), but JRuby cannot open UNIX datagram " \
          "sockets to answer it. Use Type=simple or Type=exec in the unit, without WatchdogSec, and the health check " \
          "(health_check:, docs/operations.md) for readiness and liveness"
      end

      # The watchdog interval meant for this process, or nil.
      def self.watchdog_usec(env)
        usec = Integer(env["WATCHDOG_USEC"].to_s, 10, exception: false)
        pid = env["WATCHDOG_PID"]
        return nil unless usec&.positive?
        return nil if pid && !pid.empty? && pid != ::Process.pid.to_s
        usec
      end

      def initialize(path, launcher, watchdog_usec: nil)
        super("systemd-watchdog", logger: launcher.config.logger)
        @address = Socket.sockaddr_un(path.start_with?("@") ? "\0#{path[1..]}" : path)
        @socket = Socket.new(:UNIX, :DGRAM)
        @health = Health.new(launcher)
        @interval = watchdog_usec && watchdog_usec / 2_000_000.0
        @sleeper = Sleeper.new
      end

      def ready
        notify("READY=1\nSTATUS=processing jobs\nMAINPID=#{::Process.pid}")
        start if @interval
        self
      end

      def stopping
        stop
        notify("STOPPING=1\nSTATUS=stopping: finishing running jobs")
      end

      def notify(message)
        @socket.sendmsg(message, 0, @address)
      rescue SystemCallError => e
        @logger.warn("systemd: could not notify #{message.lines.first.strip} (#{e.message})")
      end

      private

      def wake = @sleeper.stop

      def run
        while @sleeper.sleep(@interval)
          reasons = @health.live
          reasons.empty? ? notify("WATCHDOG=1") : notify("STATUS=unhealthy, not pinging the watchdog: #{reasons.join("; ")}")
        end
      end
    end
  end
end
