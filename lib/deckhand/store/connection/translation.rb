# frozen_string_literal: true

module Deckhand
  class Store
    module Connection
      # Turns an error of the Redis client into Deckhand's hierarchy, once, at the
      # store's door: a message that names the Redis (never its password), the
      # command and key that failed, and the fix; the original kept as `cause`.
      #
      #   rescue RedisClient::Error => e
      #     raise Translation.new("redis://10.0.0.5:6379/0").call(e)   # a Deckhand::RedisError, caused by e
      class Translation # :nodoc:
        FIXES = {
          "OOM" => "Redis is full: its used memory reached maxmemory, so it refuses writes (maxmemory-policy noeviction, " \
            "or nothing left that its policy may evict) and deletes nothing. Make room: trim the dead and retry sets " \
            "(the dashboard's Dead and Retries pages, a lower dead_max_jobs), delete other applications' keys, or raise " \
            "maxmemory (`CONFIG SET maxmemory`, redis.conf, or the managed service's plan); the jobs in Redis stay " \
            "where they are meanwhile",
          "READONLY" => "this Redis is a read-only replica. Point REDIS_URL (or `redis: {url:}`) at the primary",
          "WRONGTYPE" => "the key holds another kind of value than Deckhand keeps there: something else wrote " \
            "to it. Look with `redis-cli TYPE <key>`, then rename or delete it (Deckhand recreates it)",
          "NOSCRIPT" => "Redis refused to load Deckhand's Lua script. Check that scripting is allowed " \
            "(EVAL/EVALSHA, and SCRIPT LOAD on managed Redis services)",
          "NOPERM" => "the Redis user lacks a permission Deckhand needs. Grant it the commands and keys Deckhand " \
            "uses (`+@all ~*` for a dedicated user), or use another user",
          "WRONGPASS" => "Redis refused the username or password. Check the credentials in REDIS_URL",
          "NOAUTH" => "Redis wants a password. Put it in REDIS_URL (redis://:password@host:6379/0)",
          "MISCONF" => "Redis cannot persist to disk and refuses writes. Fix its disk (see the Redis log)",
          "BUSY" => "a Lua script is running too long in Redis and blocks everything. Wait, or SCRIPT KILL it",
          "LOADING" => "Redis is loading its data set after a restart. It answers once loaded",
          "MASTERDOWN" => "the replica lost its primary. It answers once the primary is back or a failover ends",
          "CROSSSLOT" => "this Redis is a cluster. Turn on Deckhand's cluster mode, or point at a plain server"
        }.freeze

        # redis-cluster-client's errors for a cluster it cannot reach: no node
        # answered the first look at the cluster's layout (InitialSetupError),
        # or some node stopped answering and the layout is being read again
        # (NodeMightBeDown). Named, not referenced: the gem loads only in
        # cluster mode.
        CLUSTER_UNREACHABLE = %w[RedisClient::Cluster::InitialSetupError RedisClient::Cluster::NodeMightBeDown].freeze

        # What to check when TLS (rediss://) fails: the server answered, so
        # "is redis-server running?" would send the reader the wrong way.
        TLS_FIX = "check the server's certificate: this host must trust the CA that signed it " \
          "(`redis: {url: \"rediss://...\", ssl_params: {ca_file: \"/path/to/ca.pem\"}}`, or the system's CA store), " \
          "it must name the host in the URL and be in date; a server that asks for a client certificate " \
          "needs `ssl_params: {cert:, key:}` (docs/operations.md, Redis connections)"

        # Codes worth a plain retry: the condition passes by itself.
        TRANSIENT_CODES = %w[LOADING BUSY MASTERDOWN TRYAGAIN CLUSTERDOWN].freeze

        def initialize(location)
          @location = location
        end

        # The redis-client error behind `error` (a Deckhand::RedisError), with
        # its message and standing for it (Deckhand::ForeignError): what
        # drop-in mode raises, as Sidekiq raises redis-client's errors. `error`
        # itself when no redis-client error is behind it.
        def self.native(error)
          cause = error.cause
          cause = cause.errors.values.first if cause.respond_to?(:errors) && cause.errors.is_a?(Hash)
          return error unless cause.is_a?(RedisClient::Error)
          native = Error.reworded(cause, error.message)
          native.extend(ForeignError)
          native.instance_variable_set(:@deckhand_error, error)
          return native unless error.is_a?(PushIncomplete)
          PushIncomplete.attach(native, pushed: error.pushed, unpushed: error.unpushed, in_doubt: error.in_doubt,
            recheck: error.instance_variable_get(:@rechecker))
        end

        # script: the name of the Deckhand script that was refused; types: for a
        # script refused with WRONGTYPE, [[key, type], ...] of the keys it declared.
        def call(error, script: nil, types: nil)
          # A cluster pipeline's refusals come in one ErrorCollection, per node:
          # the first one says what went wrong.
          inner = error.errors.values.first if error.respond_to?(:errors) && error.errors.is_a?(Hash)
          return call(inner, script: script, types: types) if inner.is_a?(RedisClient::Error)
          case error
          when Deckhand::Error then error
          when ->(e) { e.is_a?(RedisClient::CannotConnectError) && tls_failure?(e) }
            connection("the TLS handshake with Redis at #{@location} failed (#{error.message}): #{TLS_FIX}", error)
          when RedisClient::CannotConnectError
            connection("Redis at #{@location} refused the connection (#{error.message}); is redis-server " \
              "running? Set REDIS_URL or `redis: {url: ...}` to point at it", error)
          when RedisClient::CheckoutTimeoutError
            connection("no Redis connection to #{@location} came free in time (#{error.message}): every " \
              "pooled connection was busy; raise the pool size or lower concurrency", error)
          when RedisClient::TimeoutError
            connection("Redis at #{@location} did not answer in time (#{error.message})", error)
          when RedisClient::ReadOnlyError, RedisClient::MasterDownError, RedisClient::CommandError
            command(error, script, types)
          when RedisClient::ConnectionError, RedisClient::ProtocolError
            connection("lost the connection to Redis at #{@location} (#{error.message}); retrying reconnects", error)
          when ConnectionPool::TimeoutError
            connection("no Redis connection to #{@location} came free in time: every pooled connection was busy", error)
          when ->(e) { CLUSTER_UNREACHABLE.include?(e.class.name) }
            connection("no node of the Redis Cluster at #{@location} answered (#{error.message}); are the cluster's " \
              "nodes running, and do `redis: {cluster: [...]}` or REDIS_URL (nodes comma-separated) name at least one " \
              "of them as this host reaches it? Servers keep trying meanwhile", error)
          else
            RedisError.new("Redis at #{@location} failed: #{error.class}: #{error.message}")
          end
        end

        # `error` (a Deckhand::ConnectionError) as the error of `what`, a write:
        # when the connection was lost after the write was sent (not when
        # none could be opened or taken from the pool, nor when Redis refused
        # it), Redis may have run it, and the message says so.
        def lost_write(error, what)
          cause = error.cause
          cause = cause.errors.values.first if cause.respond_to?(:errors) && cause.errors.is_a?(Hash)
          return error unless cause.is_a?(RedisClient::ConnectionError) && !cause.respond_to?(:code) # READONLY, MASTERDOWN: refused
          return error if cause.is_a?(RedisClient::CannotConnectError) || cause.is_a?(RedisClient::CheckoutTimeoutError)
          Error.reworded(error, "#{error.message}. #{what} was sent and its reply lost: Redis may have run it, so the job may " \
            "have been queued, and pushing it again may queue it twice (docs/reliability.md)")
        end

        # The refusal of a write to `key` that holds another type than
        # Deckhand keeps there, known from a push's mark (Store::PushMarks)
        # rather than from the reply Redis sent, which was lost.
        def wrong_type(key)
          CommandError.new("Redis at #{@location} refused a push's write on key #{key.inspect}: WRONGTYPE it holds another " \
            "kind of value. #{FIXES["WRONGTYPE"]}", code: "WRONGTYPE", key: key)
        end

        private

        def connection(message, _error) = ConnectionError.new(message)

        # A connection that failed in its TLS handshake: redis-client raises
        # CannotConnectError with OpenSSL's message, the SSLError its cause.
        # Named, not referenced: OpenSSL loads only when TLS is used.
        def tls_failure?(error)
          error.cause&.class&.name == "OpenSSL::SSL::SSLError" || error.message.match?(/\bSSL_connect\b|certificate/)
        end

        def command(error, script, types)
          code = (error.respond_to?(:code) && error.code) ? error.code.to_s : error.message.to_s.split(" ", 2).first.to_s
          key = key_of(error.respond_to?(:command) ? error.command : nil)
          what = script ? "Deckhand's #{script} script" : command_name(error)
          message = "Redis at #{@location} refused #{what}"
          message << " on key #{key.inspect}" if key
          message << ": #{error.message}"
          if types
            message << " (the script's keys: #{types.map { |k, t| "#{k.inspect} is a #{t}" }.join(", ")})"
            key ||= types.find { |_, t| t == "string" }&.first
          end
          fix = FIXES[code]
          message << ". #{fix}" if fix
          return ConnectionError.new(message) if TRANSIENT_CODES.include?(code)
          CommandError.new(message, code: code, key: key)
        end

        def command_name(error)
          command = error.respond_to?(:command) ? error.command : nil
          command&.first ? command.first.to_s.upcase : "a command"
        end

        # The key a command acts on, never its values (they may be secrets). For a
        # script, its first declared key.
        def key_of(command)
          return nil unless command.is_a?(Array) && command.size > 1
          name = command.first.to_s.upcase
          if %w[EVALSHA EVAL EVALSHA_RO EVAL_RO FCALL].include?(name)
            nil # a script's first key is rarely the one that failed
          elsif %w[PING INFO MULTI EXEC CLIENT CONFIG SCRIPT HELLO AUTH SELECT].include?(name)
            nil
          else
            command[1].to_s
          end
        end
      end
    end
  end
end
