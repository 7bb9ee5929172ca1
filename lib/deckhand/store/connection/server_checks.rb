# frozen_string_literal: true

module Deckhand
  class Store
    module Connection
      # What the store asks the Redis server about itself at boot and for the
      # operator: whether it can run Deckhand (its version, plain or cluster
      # mode as configured) and how long it has been up. (Its memory and
      # eviction policy: Store::Connection::RedisMemory.) Included in Store; every call
      # goes through the store's own #call.
      #
      #   store.verify!          # => "7.0.15", or raises naming the fix
      #   store.uptime           # => 86_400
      module ServerChecks # :nodoc:
        MINIMUM_REDIS = Gem::Version.new("6.2.0")

        # Refuses a Redis too old for the commands Deckhand uses, and a mode that
        # does not match the Redis (a cluster node without cluster mode, cluster
        # mode against a plain server); returns the Redis version.
        def verify!
          info = call("INFO", "server")
          version = info[/redis_version:([\d.]+)/, 1]
          if version && Gem::Version.new(version) < MINIMUM_REDIS
            raise UnsupportedRedisError, "Redis at #{location} is version #{version}; Deckhand needs " \
              "#{MINIMUM_REDIS} or newer (for LMOVE and RPOP with a count). Upgrade redis-server."
          end
          verify_mode! unless @cluster
          version
        rescue RedisError => e
          raise unless @cluster && e.message.include?("cluster support disabled")
          raise ConfigError, "cluster mode is on (redis: {cluster: ...}) but #{location} is a plain Redis server, " \
            "not a Redis Cluster: remove `cluster:` and use `url:`, or point it at the cluster's nodes"
        end

        # Seconds since the Redis server started, or nil where INFO is disabled.
        def uptime
          seconds = call("INFO", "server")[/uptime_in_seconds:(\d+)/, 1]
          seconds&.to_i
        rescue CommandError
          nil
        end

        private

        def verify_mode!
          enabled = call("INFO", "cluster")[/cluster_enabled:(\d)/, 1]
          return unless enabled == "1"
          raise ConfigError, "Redis at #{location} is a node of a Redis Cluster: turn on cluster mode with " \
            "redis: {cluster: [\"#{location.sub(%r{/\d+\z}, "")}\", ...]} (or list every node in REDIS_URL, " \
            "comma-separated); docs/cluster.md"
        rescue CommandError
          nil # INFO cluster disabled: a managed service that is not a cluster
        end
      end
    end
  end
end
