# frozen_string_literal: true

require_relative "registry"
require_relative "statsd_reporter"

module Deckhand
  module Operations
    # Where a configuration's job and reaper events go: the Prometheus
    # registry (when metrics_port is set) and StatsD (when statsd is set).
    # One per Config, built at boot (Operations.hub).
    #
    #   hub = Operations.hub(config)
    #   hub.job("HardJob", "default", 0.042, false)
    #   hub.chunk("SyncJob", "default", 1000)   # a chunk of 1,000 jobs ran
    #   hub.registry   # => Registry, or nil without metrics_port
    class Hub
      attr_reader :registry, :statsd

      def initialize(config)
        @registry = Registry.new if config.metrics_port
        @statsd = StatsdReporter.new(config.statsd) if config.statsd
      end

      def job(klass, queue, seconds, failed)
        @registry&.job(klass, queue, seconds, failed)
        @statsd&.job(klass, queue, seconds, failed)
      end

      # A chunk of `jobs` jobs ran (each also counted by #job).
      def chunk(klass, queue, jobs)
        @registry&.chunk(klass, queue, jobs)
        @statsd&.chunk(klass, queue)
      end

      # A server notice (Config::Events::NOTICES) and its count.
      def call(name, count)
        @registry&.event(name, count)
        @statsd&.event(name, count)
      end
    end
  end
end
