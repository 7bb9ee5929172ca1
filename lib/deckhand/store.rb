# frozen_string_literal: true

require "redis_client"
require "connection_pool"
require_relative "store/keys"
require_relative "store/scripts"

module Deckhand
  # The one door to Redis: a connection pool, the key names and the Lua scripts.
  # Every layer above (client, server, API) talks to Redis through a Store.
  #
  #   store = Deckhand::Store.new({url: "redis://127.0.0.1:6379/0"}, size: 5)
  #   store.with { |conn| conn.call("LLEN", "queue:default") }
  #   store.script(:schedule, keys, argv)
  class Store
    MINIMUM_REDIS = Gem::Version.new("6.2.0")

    attr_reader :location

    def initialize(options, size: 5, pool_timeout: 5)
      @redis_config = RedisClient.config(**options)
      @location = describe(@redis_config)
      @pool = ConnectionPool.new(size: size, timeout: pool_timeout) { @redis_config.new_client }
      @scripts = Scripts.new
    end

    # Yields a pooled connection. Redis errors come out as Deckhand errors that say
    # which Redis failed and what to do about it.
    def with
      @pool.with { |conn| yield conn }
    rescue RedisClient::CannotConnectError => e
      raise ConnectionError, "Redis at #{location} refused the connection (#{e.message}); " \
        "is redis-server running? Set REDIS_URL or `redis: {url: ...}` to point at it", cause: e
    end

    def call(*command) = with { |conn| conn.call(*command) }

    def pipelined(&) = with { |conn| conn.pipelined(&) }

    def multi(&) = with { |conn| conn.multi(&) }

    # Runs a bundled Lua script by SHA, loading it again if Redis restarted.
    def script(name, keys, argv, conn: nil)
      return @scripts.run(conn, name, keys, argv) if conn
      with { |c| @scripts.run(c, name, keys, argv) }
    end

    # A connection outside the pool, for a thread that blocks in Redis (the idle
    # fetch) and must not hold a pooled connection the processors need.
    def dedicated_connection = @redis_config.new_client

    attr_reader :scripts

    # Refuses a Redis too old for the commands Deckhand uses; returns its INFO.
    def verify!
      info = with { |conn| conn.call("INFO", "server") }
      version = info[/redis_version:([\d.]+)/, 1]
      if version && Gem::Version.new(version) < MINIMUM_REDIS
        raise UnsupportedRedisError, "Redis at #{location} is version #{version}; Deckhand needs " \
          "#{MINIMUM_REDIS} or newer (for LMOVE and RPOP with a count). Upgrade redis-server."
      end
      version
    end

    def eviction_policy
      reply = with { |conn| conn.call("CONFIG", "GET", "maxmemory-policy") }
      reply.is_a?(Hash) ? reply.values.first : reply.last # RESP3 answers a map, RESP2 a flat list
    rescue RedisClient::CommandError
      nil # managed Redis services often disable CONFIG
    end

    def shutdown = @pool.shutdown(&:close)

    private

    # The location without a password, safe to log.
    def describe(config)
      return "unix://#{config.path}" if config.path
      "redis://#{config.host}:#{config.port}/#{config.db}"
    end
  end
end
