# frozen_string_literal: true

module Deckhand
  class Store
    # Where a ConnectionPool an application built itself points, as
    # Sidekiq's sharding guide builds them (Client::Target makes a store of
    # Deckhand's own to that Redis):
    #
    #   SHARD = ConnectionPool.new(size: 5) { RedisClient.config(url: ENV["SHARD_URL"]).new_client }
    #   PoolAddress.options(SHARD)   # => {host: "shard", port: 6379, db: 0, password: ...}
    #
    # Deckhand pushes through a store of its own to that Redis (every call
    # goes through the store), never through the pool's connections: it reads
    # one connection's settings, once. nil for anything else (a pool of
    # other objects), which Target refuses with its reason.
    module PoolAddress # :nodoc:
      KEYS = %i[host port path db username password ssl ssl_params].freeze

      module_function

      def options(value)
        return nil unless defined?(::ConnectionPool) && value.is_a?(::ConnectionPool)
        config = value.with(timeout: 1) { |conn| config_of(conn) } or return nil
        options = KEYS.to_h { |key| [key, config.public_send(key)] }.compact
        (options[:path] ? options.except(:host, :port) : options).freeze
      rescue ::ConnectionPool::TimeoutError # a pool that made no connection in time
        nil
      end

      # redis-client's connection, or the redis gem's (5.x wraps one).
      def config_of(conn)
        # Module#===, not conn.is_a?: a stand-in connection (a test's mock)
        # may answer nothing but the calls it expects.
        client = (defined?(::RedisClient) && ::RedisClient === conn) ? conn : redis_gem_client(conn)
        client&.config
      end

      def redis_gem_client(conn)
        return nil unless defined?(::Redis) && ::Redis === conn && conn.respond_to?(:_client)
        client = conn._client
        (::RedisClient === client) ? client : nil
      end
    end
  end
end
