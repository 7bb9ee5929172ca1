# frozen_string_literal: true

module Deckhand
  module DropIn
    # Sidekiq's lifecycle events (`config.on(:startup) { }` and
    # `config[:lifecycle_events]`) on Deckhand's server events: :startup,
    # :quiet, :shutdown, and the heartbeat's :heartbeat (once, at the first
    # beat that reached Redis after :startup) and :beat (every such beat).
    #
    #   events = LifecycleEvents.new(Deckhand.config)
    #   events.on(:quiet) { Pinger.stop }
    #   events.on(:beat) { Stats.flush }
    #   events.lists[:quiet]   # => the blocks the server runs when it quiets
    class LifecycleEvents
      def initialize(config)
        @config = config
      end

      def on(event, &block)
        raise ArgumentError, "Symbols only please: #{event}" unless event.is_a?(Symbol)
        raise ArgumentError, "Invalid event name: #{event}" unless Config::Events::NAMES.include?(event)
        @config.events.on(event, &block)
      end

      # Sidekiq's `config[:lifecycle_events]`: event => the blocks, in order.
      def lists
        events = @config.events
        Config::Events::NAMES.to_h { |name| [name, events.handlers(name)] }
      end
    end
  end
end
