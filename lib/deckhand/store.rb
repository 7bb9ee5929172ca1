# frozen_string_literal: true

require "redis_client"
require "connection_pool"
require_relative "store/keys"
require_relative "store/translation"
require_relative "store/script"
require_relative "store/dedicated"

module Deckhand
  # The one door to Redis: a connection pool, the key names and the Lua scripts.
  # Every layer above (client, server, API) talks to Redis through a Store, and
  # every error of the Redis client comes out of it as a Deckhand::RedisError
  # that names the Redis, the failing key and the fix (the original as `cause`).
  #
  #   store = Deckhand::Store.new({url: "redis://127.0.0.1:6379/0"}, size: 5)
  #   store.call("LLEN", "queue:default")           # => 12
  #   store.pipelined { |pipe| pipe.call("LLEN", "queue:a"); pipe.call("LLEN", "queue:b") }
  #   Deckhand::Store::Scripts::Schedule.new(store).call(now: Time.now.to_f)
  class Store
    MINIMUM_REDIS = Gem::Version.new("6.2.0")

    attr_reader :location

    def initialize(options, size: 5, pool_timeout: 5)
      @options = options
      @redis_config = RedisClient.config(**options)
      @location = describe(@redis_config)
      @translation = Translation.new(@location)
      @pool = ConnectionPool.new(size: size, timeout: pool_timeout) { @redis_config.new_client }
    end

    # Names every connection of this store (CLIENT SETNAME), those opened from
    # now on and those already open (closed, to reopen with the name): how a
    # reaper tells a dead process from a paused one (Store::Clients).
    def name_connections(name)
      @redis_config = RedisClient.config(**@options, id: name)
      @pool.reload(&:close)
    end

    # The key names: Sidekiq's layout plus Deckhand's own (Store::Keys).
    def keys = Keys

    # Yields a pooled connection for several commands in a row.
    def with
      @pool.with { |conn| yield conn }
    rescue RedisClient::Error, ConnectionPool::TimeoutError => e
      raise @translation.call(e)
    end

    def call(*command) = with { |conn| conn.call(*command) }

    def pipelined(&) = with { |conn| conn.pipelined(&) }

    def multi(&) = with { |conn| conn.multi(&) }

    # Runs a Store::Script subclass's Lua by SHA, sending the source again if
    # Redis lost it. Script wrappers call this; nothing else should.
    def evalsha(script, keys, argv, conn: nil)
      return eval_on(conn, script, keys, argv) if conn
      with { |c| eval_on(c, script, keys, argv) }
    end

    # Runs a script and, in the same round trip, `reads` (commands that read
    # what it wrote, like the LRANGE of a list it filled, so the data never
    # passes through Lua): returns [the script's reply, *the reads' replies].
    # A refusal of any of them raises, as #evalsha does.
    def evalsha_then(script, keys, argv, reads)
      with { |conn| eval_then(conn, script, keys, argv, reads) }
    end

    # A connection outside the pool, for a thread that blocks in Redis (the idle
    # fetch) and must not hold a pooled connection the processors need.
    def dedicated = Dedicated.new(@redis_config, @translation)

    # Refuses a Redis too old for the commands Deckhand uses; returns its version.
    def verify!
      info = call("INFO", "server")
      version = info[/redis_version:([\d.]+)/, 1]
      if version && Gem::Version.new(version) < MINIMUM_REDIS
        raise UnsupportedRedisError, "Redis at #{location} is version #{version}; Deckhand needs " \
          "#{MINIMUM_REDIS} or newer (for LMOVE and RPOP with a count). Upgrade redis-server."
      end
      version
    end

    # Seconds since the Redis server started, or nil where INFO is disabled.
    def uptime
      seconds = call("INFO", "server")[/uptime_in_seconds:(\d+)/, 1]
      seconds&.to_i
    rescue CommandError
      nil
    end

    # The maxmemory-policy, or nil where CONFIG is disabled (managed services).
    def eviction_policy
      reply = call("CONFIG", "GET", "maxmemory-policy")
      reply.is_a?(Hash) ? reply.values.first : reply.last # RESP3 answers a map, RESP2 a flat list
    rescue CommandError
      nil
    end

    def shutdown = @pool.shutdown(&:close)

    private

    # A refusal names the script; for WRONGTYPE (Redis does not say which key)
    # it lists the type of each key the script declared.
    def eval_on(conn, script, keys, argv)
      begin
        conn.call("EVALSHA", script.sha, keys.size, *keys, *argv)
      rescue RedisClient::NoScriptError
        conn.call("EVAL", script.source, keys.size, *keys, *argv)
      end
    rescue RedisClient::CommandError => e
      types = e.is_a?(RedisClient::WrongTypeError) ? key_types(conn, keys) : nil
      raise @translation.call(e, script: script.script_name, types: types)
    end

    def eval_then(conn, script, keys, argv, reads)
      replies = eval_pipelined(conn, "EVALSHA", script.sha, keys, argv, reads)
      # NOSCRIPT: the script did not run, so the reads found nothing it wrote.
      replies = eval_pipelined(conn, "EVAL", script.source, keys, argv, reads) if replies.first.is_a?(RedisClient::NoScriptError)
      error = replies.find { |reply| reply.is_a?(RedisClient::CommandError) }
      raise error if error
      replies
    rescue RedisClient::CommandError => e
      types = e.is_a?(RedisClient::WrongTypeError) ? key_types(conn, keys) : nil
      raise @translation.call(e, script: script.script_name, types: types)
    end

    def eval_pipelined(conn, command, script, keys, argv, reads)
      conn.pipelined(exception: false) do |pipe|
        pipe.call(command, script, keys.size, *keys, *argv)
        reads.each { |read| pipe.call(*read) }
      end
    end

    def key_types(conn, keys)
      keys = keys.first(20)
      keys.zip(conn.pipelined { |pipe| keys.each { |key| pipe.call("TYPE", key) } })
    rescue RedisClient::Error
      nil
    end

    # The location without a password, safe to log.
    def describe(config)
      return "unix://#{config.path}" if config.path
      "redis://#{config.host}:#{config.port}/#{config.db}"
    end
  end
end
