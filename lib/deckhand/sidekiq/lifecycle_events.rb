# frozen_string_literal: true

module Deckhand
  module DropIn
    # Sidekiq's lifecycle events (`config.on(:startup) { }` and
    # `config[:lifecycle_events]`) on Deckhand's server events.
    #
    #   events = LifecycleEvents.new(Deckhand.config)
    #   events.on(:quiet) { Pinger.stop }
    #   events.lists[:quiet]   # => the blocks the server runs when it quiets
    class LifecycleEvents
      # Sidekiq's events Deckhand's server does not fire.
      NOT_FIRED = {heartbeat: "a heartbeat event", beat: "a beat event"}.freeze

      def initialize(config)
        @config = config
      end

      def on(event, &block)
        raise ArgumentError, "Symbols only please: #{event}" unless event.is_a?(Symbol)
        if NOT_FIRED.key?(event)
          raise Unsupported.new("config.on(#{event.inspect})", "Deckhand's server has no #{NOT_FIRED[event]}; it fires :startup, :quiet, :shutdown and :exit")
        end
        raise ArgumentError, "Invalid event name: #{event}" unless Config::Events::NAMES.include?(event)
        @config.events.on(event, &block)
      end

      # Sidekiq's `config[:lifecycle_events]`: event => the blocks, in order.
      def lists
        events = @config.events
        Config::Events::NAMES.to_h { |name| [name, events.handlers(name)] }.merge(NOT_FIRED.transform_values { [].freeze })
      end
    end
  end
end
