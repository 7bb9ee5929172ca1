# frozen_string_literal: true

require "yaml"
require "erb"

module Deckhand
  class CLI
    # Reads config/deckhand.yml: the CLI's settings as YAML, ERB allowed, with
    # optional per-environment sections that override the top level.
    #
    #   concurrency: 10
    #   queues: ["critical,3", "default,1"]
    #   capsules:
    #     reports: {concurrency: 1, queues: [reports]}
    #   production:
    #     concurrency: <%= ENV.fetch("DECKHAND_THREADS", 25) %>
    module ConfigFile
      KNOWN = %w[concurrency queues capsules timeout redis environment log_format verbose require tag labels
        max_retries heartbeat_interval reaper_interval max_recoveries fetch_window heartbeat_ttl scheduler_interval prefetch timestamps dead_max_jobs
        dead_timeout max_payload_bytes backtrace_lines processes max_memory].freeze

      module_function

      def load(path, environment)
        raise ConfigError, "config file #{path} does not exist" unless File.exist?(path)
        data = YAML.safe_load(ERB.new(File.read(path)).result, aliases: true) || {}
        raise ConfigError, "config file #{path} must hold a YAML mapping of settings" unless data.is_a?(Hash)
        section = data.delete(environment.to_s)
        data = data.merge(section) if section.is_a?(Hash)
        data.reject! { |key, value| value.is_a?(Hash) && key != "redis" && key != "capsules" } # other environments
        unknown = data.keys - KNOWN
        raise ConfigError, "config file #{path}: unknown settings #{unknown.join(", ")}; known: #{KNOWN.join(", ")}" unless unknown.empty?
        symbolize(data)
      rescue Psych::Exception => e
        raise ConfigError, "config file #{path} is not valid YAML: #{e.message}"
      end

      def symbolize(data)
        data.to_h do |key, value|
          value = value.map { |name, spec| spec.merge("name" => name) } if key == "capsules" && value.is_a?(Hash)
          [key.to_sym, value]
        end
      end
    end
  end
end
