# frozen_string_literal: true

require_relative "address"
require_relative "statsd"

module Deckhand
  class Config
    # The writers of the operations settings (docs/operations.md):
    #
    #   Deckhand.configure do |c|
    #     c.metrics_port = 9394                 # Prometheus /metrics of this process, on 0.0.0.0
    #     c.health_check = "127.0.0.1:7434"     # /live and /ready for Kubernetes probes
    #     c.statsd = {host: "127.0.0.1", port: 8125, tags: ["env:production"]}
    #   end
    module OperationsSettings
      # The port (or "host:port") of the process's Prometheus /metrics; nil: none.
      def metrics_port=(value)
        change!(:metrics_port)
        Address.parse(:metrics_port, value, default_host: "0.0.0.0") unless value.nil?
        @metrics_port = value
      end

      # The "host:port" (or port) of the process's /live and /ready probes; nil: none.
      def health_check=(value)
        change!(:health_check)
        Address.parse(:health_check, value, default_host: "127.0.0.1") unless value.nil?
        @health_check = value
      end

      # Where StatsD events go ({host:, port:, tags:, prefix:}, Config::Statsd); nil: none.
      def statsd=(value)
        change!(:statsd)
        @statsd = value.nil? ? nil : Statsd.from(value)
      end

      # Where the per-process Prometheus endpoint listens, or nil.
      def metrics_address = metrics_port && Address.parse(:metrics_port, metrics_port, default_host: "0.0.0.0")

      # Where the health probes listen (Config::Address), or nil.
      def health_address = health_check && Address.parse(:health_check, health_check, default_host: "127.0.0.1")
    end
  end
end
