# frozen_string_literal: true

require_relative "redis_url"

module Deckhand
  class Config
    # Where jobs go: the Redis options, the connection pool built from them,
    # the key layout of the mode (plain or cluster), reliable push, and
    # whether a server refuses a Redis that may evict jobs.
    #
    #   config.redis = {url: "redis://10.0.0.5:6379/2"}
    #   config.store.location   # => "redis://10.0.0.5:6379/2"
    #   config.layout           # => Store::Layout::Plain
    module RedisSettings
      # How to reach Redis: redis-client's options ({url:, ssl_params:, sentinels:, ...}); {} reads REDIS_URL.
      def redis=(options)
        change!(:redis)
        raise ConfigError, "redis must be a Hash of redis-client options, like {url: \"redis://host:6379/0\"}" unless options.is_a?(Hash)
        options = symbolize(options)
        RedisUrl.check!(options[:url]) unless options[:url].nil?
        RedisUrl.check_cluster!(options[:cluster], options[:url]) unless options[:cluster].nil?
        @redis = options.freeze
      end

      # The options as redis-client reads them: Symbol keys, also inside
      # ssl_params and each Sentinel's Hash, where a config file's YAML gives
      # Strings (redis-client would skip a "cert" given as a path).
      def symbolize(options)
        options = options.transform_keys(&:to_sym)
        options[:ssl_params] = options[:ssl_params].transform_keys(&:to_sym) if options[:ssl_params].is_a?(Hash)
        if options[:sentinels].is_a?(Array)
          options[:sentinels] = options[:sentinels].map { |sentinel| sentinel.is_a?(Hash) ? sentinel.transform_keys(&:to_sym) : sentinel }
        end
        options
      end
      private :symbolize

      # What fills in the Redis options when the store is built: a block
      # called with (redis_options, environment) that returns the options to
      # connect with. Deckhand.config's default configuration sets one that,
      # in development with no Redis given, uses this project's development
      # Redis (DevRedis::Project.fill_in); without one the options are used
      # as they are.
      #
      #   config.fill_in_redis { |redis, environment| redis.empty? ? {url: LocalRedis.url} : redis }
      def fill_in_redis(&block)
        change!(:fill_in_redis)
        raise ArgumentError, "give a block called with (redis_options, environment)" unless block
        @redis_fill_in = block
      end

      # Reliable push: when Redis cannot be reached, pushes wait in memory (up
      # to reliable_push_limit jobs) and are written in order once it answers.
      # See Client::PushBuffer for what this can and cannot save.
      def reliable_push=(value)
        change!(:reliable_push)
        raise ConfigError, "reliable_push must be true or false, got #{value.inspect}" unless [true, false].include?(value)
        @reliable_push = value
      end

      # true: a server does not start on a Redis whose maxmemory-policy may
      # delete keys (any but noeviction) or that does not say its policy
      # (Server::Chores::EvictionWatch). false (the default): it starts and warns.
      #
      #   config.refuse_evicting_redis = true   # config/deckhand.yml: refuse_evicting_redis: true
      def refuse_evicting_redis=(value)
        change!(:refuse_evicting_redis)
        unless [true, false].include?(value)
          raise ConfigError, "refuse_evicting_redis must be true (a server refuses a Redis that may evict jobs) or false " \
            "(it starts and warns), got #{value.inspect}"
        end
        @refuse_evicting_redis = value
      end

      # The Redis connection pool, built on first use and again in a forked child.
      def store
        return @store if @store && @store_pid == ::Process.pid
        @store_pid = ::Process.pid
        options = @redis_fill_in ? @redis_fill_in.call(@redis, environment) : @redis
        # A fiber capsule counts as its few Redis users, not its thousand fibers.
        @store = Store.new(options, size: all_capsules.sum(&:redis_users) + 5)
        @store.durability = durability
        @store
      end

      # The store's layout (Store::Layout::Plain, or in cluster mode the
      # store's own, which needs the store for the queues' placements).
      def layout = Store::Connection::ClusterMode.nodes(@redis) ? store.layout : Store::Layout::Plain
    end
  end
end
