# frozen_string_literal: true

require_relative "../store/app_connection"

module Deckhand
  module DropIn
    # What Sidekiq 7 calls a Redis pool, in drop-in mode: the face of a
    # ConnectionPool (`with`, `size`, `checkout`, `shutdown`) over a
    # Deckhand::Store, which makes every call. Its connections answer
    # Sidekiq's command methods and raise redis-client's errors, as
    # Sidekiq's pools do (Store::AppConnection).
    #
    #   pool = Sidekiq::RedisConnection.create(url: ENV["SHARD_URL"], size: 5)
    #   pool.with { |conn| conn.get("greeting") }
    #   Sidekiq::Client.via(pool) { ReportJob.perform_async }
    #   Sidekiq.default_configuration.redis_pool.size   # => 10
    class RedisPool
      @lock = Mutex.new
      @by_store = {}.compare_by_identity

      # The pool over `store`, the same object each time.
      def self.for(store) = @lock.synchronize { @by_store[store] ||= new(store) }

      # Lends a connection of `store` to the block, as Sidekiq's
      # `config.redis` does (Store::AppConnection.lend).
      def self.lend(store, &) = Store::AppConnection.lend(store, &)

      # The store, and the seconds a checkout waits for a free connection.
      attr_reader :store, :timeout

      def initialize(store)
        @store = store
        @timeout = store.pool_timeout
      end

      def size = @store.size

      def with(&) = RedisPool.lend(@store, &)

      alias_method :then, :with

      # Sharding (Client.via, `sidekiq_options pool:`) pushes through this store.
      def deckhand_store = @store

      def checkout(_options = {}) = Store::AppConnection.new(@store.checkout)

      def checkin(_options = {}) = @store.checkin

      # Closes every connection; the pool takes no more work.
      def shutdown(&) = @store.shutdown

      def inspect = "#<#{self.class.name} #{@store.location} size=#{size}>"
    end
  end
end
