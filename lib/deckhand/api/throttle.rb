# frozen_string_literal: true

require_relative "../store/throttles"

module Deckhand
  class API
    # One queue's throttle (docs/limits.md): the limit in force, what it uses
    # now, and run-time changes, stored in Redis and picked up by every
    # process at its next heartbeat.
    #
    #   throttle = api.throttle("exports")
    #   throttle.limit         # => {"concurrency" => 3} (nil: not throttled)
    #   throttle.held          # => 2 slots in use across the fleet
    #   throttle.set(concurrency: 5)
    #   throttle.set(rate: 20, per: :second)
    #   throttle.remove        # not throttled, whatever the configuration says
    #   throttle.reset         # back to the configuration
    class Throttle
      attr_reader :queue

      # The queues throttled by the configuration or at run time.
      def self.all(config)
        overrides = Store::Throttles.overrides(config.store)
        names = config.throttle.to_h.keys | overrides.keys
        names.sort.map { |name| new(name, config, overrides: overrides) }.select(&:limit)
      end

      # overrides: the run-time limits already read (Store::Throttles.overrides).
      def initialize(queue, config, overrides: nil)
        @queue = queue.to_s
        @config = config
        @store = config.store
        @overrides = overrides
      end

      # The limits in force ("rate", "per", "concurrency"), or nil.
      def limit
        override = overrides[@queue]
        return (override.empty? ? nil : override) if override
        @config.throttle[@queue]&.to_h
      end

      # True when the limit comes from Redis, not the configuration.
      def changed? = overrides.key?(@queue)

      def held = Store::Throttles.usage(@store, @queue)[:held]

      def set(**limits)
        limit = Config::Throttle.limit!(@queue, limits) # raises ConfigError naming the problem
        if @config.partitions.count(@queue) > 1 # each partition's fetch would count only its own jobs
          raise ConfigError, "queue #{@queue.inspect} is partitioned, and a partitioned queue cannot be throttled yet"
        end
        Store::Throttles.set(@store, @queue, limit.to_h)
        @overrides = nil
        self
      end

      def remove = Store::Throttles.set(@store, @queue, {}).then { forget }

      def reset = Store::Throttles.reset(@store, @queue).then { forget }

      private

      def overrides = @overrides ||= Store::Throttles.overrides(@store)

      def forget
        @overrides = nil
        self
      end
    end
  end
end
