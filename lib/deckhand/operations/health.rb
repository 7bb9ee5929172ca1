# frozen_string_literal: true

module Deckhand
  module Operations
    # Whether a server process is healthy, for probes and the systemd
    # watchdog. Live: not stopping, every capsule's fetcher and the heartbeat
    # running (not dead, not waiting to restart after a crash), and Redis
    # reachable (a heartbeat written within a bound). Ready: live and not quiet.
    # /ready's body also carries the eviction watch's warnings (Redis may
    # evict Deckhand's keys, or is nearly full) after its "ok": they do not
    # make a process unready, since a 503 there would stall every rolling
    # deploy and help nothing, but a probe's log and `curl` show them.
    #
    #   health = Health.new(launcher)
    #   health.live    # => [] when healthy, else the reasons
    #   health.ready   # => ["quiet: finishing running jobs, taking no more"] after TSTP
    #   health.warnings   # => ["Redis at redis://... has maxmemory-policy allkeys-lru (...): ..."]
    class Health
      def initialize(launcher)
        @launcher = launcher
        config = launcher.config
        # Redis is unreachable when no beat got through for this long. A beat
        # of a process whose threads burn CPU can lag seconds behind its
        # interval (the interpreter lock), whatever the interval: at least
        # half the record's TTL, so a probe never restarts a busy process.
        @bound = [(config.heartbeat_interval * 2) + 2, config.heartbeat_ttl / 2.0].max
      end

      def live
        return ["stopping"] if @launcher.stopping?
        reasons = @launcher.capsules.filter_map do |capsule|
          "the fetcher of capsule #{capsule.spec.name} is not running" unless capsule.fetcher.running?
        end
        heartbeat = @launcher.heartbeat
        reasons << "the heartbeat is not running" unless heartbeat.running?
        silent = heartbeat.silent_for
        reasons << "Redis unreachable: no heartbeat written for #{silent.round(1)}s" if silent > @bound
        reasons
      end

      def ready
        reasons = live
        reasons << "quiet: finishing running jobs, taking no more" if @launcher.quiet? && !@launcher.stopping?
        reasons
      end

      # What the eviction watch's last look found about Redis' memory.
      def warnings = @launcher.eviction_watch.look.concerns.map(&:text)

      # [status, content type, body] for the probe paths.
      def respond(path)
        reasons = case path
        when "/", "/live", "/health" then live
        when "/ready" then ready
        else return [404, "text/plain", "not found: try /live or /ready\n"]
        end
        notes = (path == "/ready") ? warnings.map { |text| "warning: #{text}\n" }.join : ""
        reasons.empty? ? [200, "text/plain", "ok\n#{notes}"] : [503, "text/plain", reasons.join("\n") + "\n" + notes]
      end
    end
  end
end
