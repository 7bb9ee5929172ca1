# frozen_string_literal: true

module Deckhand
  class Config
    # Where StatsD / DogStatsD metrics go (docs/operations.md). Metric names
    # are Sidekiq Pro's (jobs.count, jobs.success, jobs.failure, jobs.perform)
    # with worker: and queue: tags, so existing Datadog dashboards keep working.
    #
    #   Deckhand.configure do |c|
    #     c.statsd = {host: "127.0.0.1", port: 8125, tags: ["env:production"], prefix: "sidekiq"}
    #   end
    class Statsd
      # What a metric prefix may be: dot-separated words.
      PREFIX = /\A[a-zA-Z0-9_]+(\.[a-zA-Z0-9_]+)*\z/
      # The keys of the statsd setting.
      KEYS = %i[host port tags prefix].freeze

      attr_reader :host, :port, :tags, :prefix

      def initialize(host: "127.0.0.1", port: 8125, tags: [], prefix: nil)
        raise ConfigError, "statsd host must be a host name or address, like \"127.0.0.1\", got #{host.inspect}" unless host.is_a?(String) && !host.empty?
        raise ConfigError, "statsd port must be an Integer from 1 to 65535, like 8125, got #{port.inspect}" unless port.is_a?(Integer) && (1..65_535).cover?(port)
        @host = host.dup.freeze
        @port = port
        @tags = tag_list(tags)
        if !prefix.nil? && !(prefix.is_a?(String) && PREFIX.match?(prefix))
          raise ConfigError, "statsd prefix must be dotted words like \"sidekiq\" or \"deckhand\" (no trailing dot), got #{prefix.inspect}"
        end
        @prefix = prefix&.dup&.freeze
      end

      # From a setting: a Hash with any of host, port, tags, prefix.
      def self.from(settings)
        raise ConfigError, "statsd must be a Hash like {host: \"127.0.0.1\", port: 8125}, got #{settings.inspect}" unless settings.is_a?(Hash)
        settings = settings.transform_keys(&:to_sym)
        unknown = settings.keys - KEYS
        raise ConfigError, "statsd: unknown key #{unknown.first.inspect}; known: #{KEYS.join(", ")}" unless unknown.empty?
        new(**settings)
      end

      private

      # ["env:prod"] or {env: "prod"}: DogStatsD tags, as "name:value" strings.
      def tag_list(tags)
        list = tags.is_a?(Hash) ? tags.map { |name, value| "#{name}:#{value}" } : tags
        unless list.is_a?(Array) && list.all? { |tag| tag.is_a?(String) && !tag.empty? && !tag.match?(/[,|#\s]/) }
          raise ConfigError, "statsd tags must be an Array of \"name:value\" strings (no commas, pipes, # or spaces) or a Hash, got #{tags.inspect}"
        end
        list.map { |tag| tag.dup.freeze }.freeze
      end
    end
  end
end
