# frozen_string_literal: true

require_relative "../store/app_connection"

module Deckhand
  module DropIn
    # What Sidekiq 7 calls a Redis pool, in drop-in mode: the face of a
    # ConnectionPool (`with`, `size`, `checkout`, `shutdown`) over a
    # Deckhand::Store, which makes every call. Its connections answer
    # Sidekiq's command methods (Store::AppConnection), and errors come out
    # as redis-client raised them, as from Sidekiq's pools, so application
    # code rescuing RedisClient::CommandError keeps working.
    #
    #   pool = Sidekiq::RedisConnection.create(url: ENV["SHARD_URL"], size: 5)
    #   pool.with { |conn| conn.get("greeting") }
    #   Sidekiq::Client.via(pool) { ReportJob.perform_async }
    #   Sidekiq.default_configuration.redis_pool.size   # => 10
    class RedisPool
      # Messages after which Sidekiq reopens the connection and runs the
      # block once more: a failover turned the server into a replica, the
      # primary lacks replicas, or a blocking command was unblocked by one.
      REOPEN = /READONLY|NOREPLICAS|UNBLOCKED/

      @lock = Mutex.new
      @by_store = {}.compare_by_identity

      # The pool over `store`, the same object each time.
      def self.for(store) = @lock.synchronize { @by_store[store] ||= new(store) }

      # Lends a connection of `store` to the block, as Sidekiq's
      # `config.redis` does: once more on a fresh socket after REOPEN errors.
      def self.lend(store)
        store.with do |client|
          conn = Store::AppConnection.new(client)
          retried = false
          begin
            yield conn
          rescue RedisClient::Error => e
            raise if retried || !REOPEN.match?(e.message)
            retried = true
            client.close
            retry
          end
        end
      rescue Deckhand::RedisError => e
        # The store translates; Sidekiq's callers get redis-client's own error.
        raise(e.cause.is_a?(RedisClient::Error) ? e.cause : e)
      end

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
