# frozen_string_literal: true

module Deckhand
  class Store
    # A connection of its own, outside the pool, for a thread that blocks inside
    # Redis (an idle waiter's BLMOVE) while processors keep the pooled ones.
    # Errors come out translated, as from the store.
    #
    #   conn = store.dedicated
    #   conn.blocking_call(2, "BLMOVE", "queue:default", landing, "RIGHT", "LEFT", 2)
    #   conn.close
    class Dedicated
      def initialize(redis_config, translation)
        @client = redis_config.new_client
        @translation = translation
      end

      # Waits up to `timeout` seconds for Redis to answer (plus a margin).
      def blocking_call(timeout, *command)
        @client.blocking_call(timeout, *command)
      rescue RedisClient::Error => e
        raise @translation.call(e)
      end

      def call(*command)
        @client.call(*command)
      rescue RedisClient::Error => e
        raise @translation.call(e)
      end

      def close = @client.close
    end
  end
end
