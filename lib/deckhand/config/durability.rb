# frozen_string_literal: true

module Deckhand
  class Config
    # The writers of the push durability settings (Store::Connection::Durability,
    # docs/cluster.md): how many replicas must acknowledge a push, and how
    # long it waits for them, before the push returns.
    #
    #   Deckhand.configure do |c|
    #     c.push_replicas = 1            # 0 (the default): a push returns once the primary has it
    #     c.push_replicas_timeout = 0.5  # seconds; then Deckhand::NotReplicated
    #   end
    #   # config/deckhand.yml:  push_replicas: 1
    module DurabilitySettings
      # The most replicas a push may wait for.
      MAX_REPLICAS = 16
      # The seconds push_replicas_timeout may be.
      TIMEOUTS = (0.01..60)

      # Replicas that must have a push before it returns (0 to MAX_REPLICAS; 0: do not wait).
      def push_replicas=(value)
        change!(:push_replicas)
        unless value.is_a?(Integer) && value.between?(0, MAX_REPLICAS)
          raise ConfigError, "push_replicas must be an Integer from 0 (do not wait) to #{MAX_REPLICAS}: how many " \
            "replicas must have a push before it returns; got #{value.inspect}"
        end
        @push_replicas = value
        apply_durability
      end

      # Seconds a push waits for its replicas before it raises Deckhand::NotReplicated.
      def push_replicas_timeout=(value)
        change!(:push_replicas_timeout)
        unless value.is_a?(Numeric) && TIMEOUTS.cover?(value)
          raise ConfigError, "push_replicas_timeout must be seconds from #{TIMEOUTS.min} to #{TIMEOUTS.max} " \
            "(how long a push waits for its replicas; never forever), got #{value.inspect}"
        end
        @push_replicas_timeout = value
        apply_durability
      end

      private

      # Also on a store already built: a client may change it after its first push.
      def apply_durability
        @store.durability = durability if @store
      end

      def durability = Store::Connection::Durability.for(@push_replicas || 0, @push_replicas_timeout || 1.0)
    end
  end
end
