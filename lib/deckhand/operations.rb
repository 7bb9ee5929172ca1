# frozen_string_literal: true

require_relative "config"
require_relative "operations/exposition"
require_relative "operations/hub"
require_relative "operations/job_metrics"

module Deckhand
  # What people who run Deckhand plug into (docs/operations.md): Prometheus
  # metrics, StatsD, health probes, systemd notification. Loaded when one of
  # them is configured; the Prometheus exposition is plain text written here,
  # so nothing needs a gem.
  #
  #   Deckhand.configure do |c|
  #     c.metrics_port = 9394
  #     c.health_check = "127.0.0.1:7434"
  #     c.statsd = {host: "127.0.0.1", port: 8125}
  #   end
  module Operations
    class << self
      # The hub of a configuration's job events (one per Config).
      def hub(config) = config.attachment(:operations_hub) { Hub.new(config) }

      # Called once as the configuration freezes at boot (Config.on_boot,
      # below), when metrics_port or statsd is set: the middleware counting
      # jobs, and the server's notices, go to the configuration's hub.
      def install(config)
        hub = hub(config)
        config.server_middleware.prepend(JobMetrics, hub)
        (Config::Events::NOTICES - [:chunk]).each { |name| config.events.on(name) { |count| hub.call(name, count) } }
        config.events.on(:chunk) { |jobs, klass, queue| hub.chunk(klass, queue, jobs) }
      end

      # Under systemd (NOTIFY_SOCKET): READY=1 now, watchdog pings, and
      # #stopping; nil otherwise.
      def systemd(launcher)
        return nil unless ENV["NOTIFY_SOCKET"]
        require_relative "operations/systemd"
        Systemd.boot(launcher)
      end

      # The launcher's operations, or nil when none is configured.
      # (The launcher reads the process's memory for /metrics: rss_kb.)
      def start(launcher)
        config = launcher.config
        return nil unless config.metrics_port || config.health_check || config.statsd
        require_relative "operations/runtime"
        Runtime.new(launcher).start
      end
    end
  end

  Config.on_boot { |config| Operations.install(config) if config.metrics_port || config.statsd }
end
