# frozen_string_literal: true

require_relative "http_listener"
require_relative "health"
require_relative "process_metrics"
require_relative "flusher"

module Deckhand
  module Operations
    # What a running server process offers its operators, started and
    # stopped with its launcher: the Prometheus endpoint (metrics_port), the
    # health endpoint (health_check) and StatsD's flushes. (The reaper's
    # notices reach the hub through the configuration's events: Operations.install.)
    # Nothing is started when neither is configured. In a swarm (`-P`),
    # worker N listens on the configured port + N, so each worker is scraped
    # and probed on its own.
    #
    #   runtime = Runtime.new(launcher).start
    #   runtime.health.live   # => []
    #   runtime.stop
    class Runtime
      attr_reader :health, :metrics_listener, :health_listener

      def initialize(launcher)
        config = launcher.config
        @health = Health.new(launcher)
        @hub = Operations.hub(config) if config.metrics_port || config.statsd
        @listeners = []
        @flusher = Flusher.new(@hub.statsd, logger: config.logger, looks: -> { launcher.eviction_watch.look }) if @hub&.statsd
        if config.metrics_port
          metrics = ProcessMetrics.new(launcher, @hub.registry)
          @metrics_listener = listen("metrics", "/metrics", config.metrics_address, config.logger) { |path| metrics.respond(path) }
        end
        if config.health_check
          @health_listener = listen("health", "/live and /ready", config.health_address, config.logger) { |path| @health.respond(path) }
        end
      rescue ConfigError
        @listeners.each(&:close)
        raise
      end

      def start
        @listeners.each(&:start)
        @flusher&.start
        self
      end

      def stop
        @listeners.each(&:close)
        @flusher&.close
      end

      private

      # Logs the address with the page(s) to ask for: a bare "/" there is a 404.
      def listen(name, pages, address, logger, &)
        worker = Integer(ENV.fetch("DECKHAND_WORKER", ""), 10, exception: false)
        address = Config::Address.new(address.host, address.port + worker) if worker && address.port.positive?
        listener = HttpListener.new(name, address, logger: logger, &)
        @listeners << listener
        base = "http://#{address.host.include?(":") ? "[#{address.host}]" : address.host}:#{listener.port}"
        logger.info("#{name} endpoint at #{pages.split(" and ").map { |page| "#{base}#{page}" }.join(" and ")}")
        listener
      end
    end
  end
end
