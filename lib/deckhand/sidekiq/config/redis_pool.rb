# frozen_string_literal: true

require "connection_pool"
require_relative "../../store/connection/app_connection"

module Deckhand
  module DropIn
    # What Sidekiq 7 calls a Redis pool, in drop-in mode: a ConnectionPool
    # in class (Sidekiq's client middleware, plugins and tests check
    # `ConnectionPool === pool`), whose every method (`with`, `size`,
    # `checkout`, `shutdown` ...) works over a Deckhand::Store, which makes
    # every call. Its connections answer Sidekiq's command methods and raise
    # redis-client's errors, as Sidekiq's pools do (Store::Connection::AppConnection).
    #
    #   pool = Sidekiq::RedisConnection.create(url: ENV["SHARD_URL"], size: 5)
    #   pool.with { |conn| conn.get("greeting") }
    #   Sidekiq::Client.via(pool) { ReportJob.perform_async }
    #   Sidekiq.default_configuration.redis_pool.size   # => 10
    #   Sidekiq.default_configuration.redis_pool.class  # => ConnectionPool
    #
    # The pool is ConnectionPool.allocate extended with this module: never
    # initialized as a ConnectionPool, it holds no connections of its own,
    # and this module answers each of ConnectionPool's public methods
    # (test/dropin/inside/test_redis_pools.rb checks none is left out).
    module RedisPool
      @lock = Mutex.new
      @by_store = {}.compare_by_identity

      # The pool over `store`, the same object each time.
      def self.for(store) = @lock.synchronize { @by_store[store] ||= ConnectionPool.allocate.extend(self).__send__(:over, store) }

      # Lends a connection of `store` to the block, as Sidekiq's
      # `config.redis` does (Store::Connection::AppConnection.lend).
      def self.lend(store, &) = Store::Connection::AppConnection.lend(store, &)

      # The store, and the seconds a checkout waits for a free connection.
      attr_reader :store, :timeout

      def size = @store.size

      def with(_options = {}, &) = RedisPool.lend(@store, &)

      def then(_options = {}, &) = RedisPool.lend(@store, &)

      # Sharding (Client.via, `sidekiq_options pool:`) pushes through this store.
      def deckhand_store = @store

      def checkout(_options = {}) = Store::Connection::AppConnection.new(@store.checkout)

      def checkin(_options = {}) = @store.checkin

      # Closes every connection; the pool takes no more work.
      def shutdown(&) = @store.shutdown

      # Nothing to drop: the store's connections reconnect by themselves
      # in a forked child (redis-client notices the new process).
      def reload(&) = nil

      # The store's own pool keeps its connections; these report on none.
      def available = size

      def idle = 0

      def reap(*) = nil

      def discard_current_connection(&) = nil

      def auto_reload_after_fork = true

      def inspect = "#<ConnectionPool over #{@store.location} size=#{size}>"

      private

      def over(store)
        @store = store
        @timeout = store.pool_timeout
        self
      end
    end
  end
end
