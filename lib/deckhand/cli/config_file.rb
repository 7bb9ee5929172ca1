# frozen_string_literal: true

require "yaml"
require "erb"
require "did_you_mean"
require_relative "sidekiq_yaml"

module Deckhand
  class CLI
    # Reads config/deckhand.yml: the CLI's settings as YAML, ERB allowed, with
    # optional per-environment sections that override the top level. Sidekiq's
    # config/sidekiq.yml reads too (CLI::SidekiqYaml).
    #
    #   concurrency: 10
    #   queues: ["critical,3", "default,1"]
    #   capsules:
    #     reports: {concurrency: 1, queues: [reports]}
    #   production:
    #     concurrency: <%= ENV.fetch("DECKHAND_THREADS", 25) %>
    module ConfigFile
      # Every Config setting, and what only the command line's process uses.
      KNOWN = (Config::SETTINGS.keys.map(&:to_s) + %w[capsules log_format verbose require processes max_memory]).freeze

      module_function

      # Whether `key` (a String) is a setting of the file.
      def known?(key) = KNOWN.include?(key)

      # A Sidekiq config/sidekiq.yml's settings, in Deckhand's form.
      def normalize(data) = SidekiqYaml.normalize(data)

      def load(path, environment)
        raise ConfigError, "config file #{path} does not exist" unless File.exist?(path)
        data = YAML.safe_load(ERB.new(File.read(path)).result, aliases: true, permitted_classes: [Symbol]) || {}
        raise ConfigError, "config file #{path} must hold a YAML mapping of settings" unless data.is_a?(Hash)
        data = SidekiqYaml.normalize(data) # a config/sidekiq.yml reads as is
        section = data.delete(environment.to_s)
        data = data.merge(section) if section.is_a?(Hash)
        data.reject! { |key, value| value.is_a?(Hash) && !KNOWN.include?(key) } # other environments
        unknown = data.keys - KNOWN
        raise ConfigError, "config file #{path}: #{describe(unknown)}" unless unknown.empty?
        symbolize(data)
      rescue Psych::Exception => e
        raise ConfigError, "config file #{path} is not valid YAML: #{e.message}"
      end

      def describe(unknown)
        spell = DidYouMean::SpellChecker.new(dictionary: KNOWN)
        unknown.map do |key|
          guess = spell.correct(key.to_s).first
          "unknown setting #{key.inspect}" + (guess ? " (did you mean #{guess}?)" : "")
        end.join("; ") + "; known settings: #{KNOWN.join(", ")}"
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
