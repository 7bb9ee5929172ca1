# frozen_string_literal: true

module Deckhand
  class Config
    # Defaults for the batches created with one Config, validated where set.
    #
    #   Deckhand.configure { |c| c.batches = {callback_queue: "callbacks", success_ttl: 3600} }
    #   # config/deckhand.yml:  batches: {callback_queue: callbacks}
    #
    # - callback_queue  where callback jobs go ("default")
    # - success_ttl     seconds a batch's data stays after it succeeded (1 day)
    # - idle_ttl        seconds an unfinished batch's data stays after it last
    #                   changed: jobs added, a failure, a death (30 days, as long
    #                   as a dead job may sit waiting for a retry that can still
    #                   let the batch succeed)
    class Batches
      # Each setting's default (above).
      DEFAULTS = {callback_queue: "default", success_ttl: 24 * 60 * 60, idle_ttl: 30 * 24 * 60 * 60}.freeze

      # @return [String] the queue callback jobs go to
      attr_reader :callback_queue
      # @return [Integer] seconds a batch's data stays after it succeeded
      attr_reader :success_ttl
      # @return [Integer] seconds an unfinished batch's data stays after it last changed
      attr_reader :idle_ttl

      def initialize(**settings)
        unknown = settings.keys.map(&:to_sym) - DEFAULTS.keys
        raise ConfigError, "unknown batch setting #{unknown.first.inspect}; known: #{DEFAULTS.keys.join(", ")}" unless unknown.empty?
        settings = DEFAULTS.merge(settings.transform_keys(&:to_sym))
        @callback_queue = self.class.queue!(settings[:callback_queue])
        @success_ttl = self.class.ttl!(:success_ttl, settings[:success_ttl])
        @idle_ttl = self.class.ttl!(:idle_ttl, settings[:idle_ttl])
        freeze
      end

      def self.queue!(name) # :nodoc:
        valid = (name.is_a?(String) || name.is_a?(Symbol)) && !name.to_s.empty?
        raise ConfigError, "batch callback_queue must be a non-empty queue name, got #{name.inspect}" unless valid
        name.to_s
      end

      # Seconds, kept to the millisecond in Redis; at most ten years.
      def self.ttl!(name, value)
        unless value.is_a?(Numeric) && value >= 0.001 && value <= 10 * 365 * 86_400
          raise ConfigError, "batch #{name} must be a number of seconds from 0.001 to ten years, got #{value.inspect}"
        end
        value
      end
    end
  end
end
