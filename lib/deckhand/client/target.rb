# frozen_string_literal: true

require_relative "../config/redis_url"
require_relative "routed_config"
require_relative "../store/pool_address"

module Deckhand
  class Client
    # Another Redis to push jobs to (client-side sharding, docs/sharding.md):
    # what `Client.via`, `deckhand_options pool:` and `set(pool:)` take, made
    # from a Deckhand::Store, a redis-client options Hash or a Redis URL. One
    # Target per Store and per distinct options, so the same Hash or URL given
    # twice shares one connection pool. Its inspect shows where it points,
    # never a password.
    #
    #   eu = Deckhand::Client::Target.for("redis://eu-redis:6379/0")
    #   eu.store                     # => the Deckhand::Store its pushes go through
    #   eu.config_for(Deckhand.config) # => that configuration, pushing to eu's Redis
    #   eu.inspect                   # => "#<Deckhand::Client::Target redis://eu-redis:6379/0>"
    class Target
      # redis-client options that size the pool rather than the connection.
      POOL_OPTIONS = %i[size pool_timeout].freeze

      @lock = Mutex.new
      @by_store = {}.compare_by_identity
      @by_options = {}

      class << self
        # The Target for `value` (a Target, Store, Hash or URL String); `where`
        # names the call in the error a bad value raises.
        def for(value, where = "Deckhand::Client.via")
          return value if value.is_a?(Target)
          # A pool that fronts a store (drop-in mode's Sidekiq pools).
          value = value.deckhand_store if value.respond_to?(:deckhand_store)
          return memo(@by_store, value) { new(value) } if value.is_a?(Store)
          options = Store::PoolAddress.options(value) || options_of(value, where)
          memo(@by_options, options) { new(build_store(options)) }
        end

        private

        def memo(table, key)
          @lock.synchronize { table[key] ||= yield }
        end

        def options_of(value, where)
          case value
          when String
            Config::RedisUrl.check!(value)
            {url: value}.freeze
          when Hash
            options = value.transform_keys(&:to_sym)
            Config::RedisUrl.check!(options[:url]) unless options[:url].nil?
            options.freeze
          else
            raise ConfigError, "#{where} takes another Redis as a Deckhand::Store, a redis-client options Hash " \
              "({url: \"redis://host:6379/0\"}) or a Redis URL String; got #{describe(value)}. #{hint(value)}"
          end
        end

        def build_store(options)
          pool = options.slice(*POOL_OPTIONS)
          Store.new(options.except(*POOL_OPTIONS), **pool)
        rescue ArgumentError => e
          raise ConfigError, "the Redis options #{options.keys.inspect} are not all redis-client options: #{e.message}", cause: e
        end

        # The class only: the value may hold a password.
        def describe(value) = value.nil? ? "nil" : "a #{value.class}"

        def hint(value)
          return "Give the Redis to push to." if value.nil?
          build = defined?(::Sidekiq::DECKHAND) ? "Sidekiq::RedisConnection.create(url: ENV[\"SHARD_URL\"])" : "Deckhand::Store.new({url: ENV[\"SHARD_URL\"]})"
          pool = defined?(::ConnectionPool) && value.is_a?(::ConnectionPool)
          return "A ConnectionPool is taken when its connections are redis-client's (or the redis gem's): build it with #{build}, or pass the URL." if pool
          "Build one with #{build}, or pass the URL."
        end
      end

      attr_reader :store

      def initialize(store)
        @store = store
        @routed = {}.compare_by_identity
        @lock = Mutex.new
      end

      # Where it points, without a password: "redis://host:6379/0".
      def location = @store.location

      # `config` with this Redis in place of its own (RoutedConfig): its
      # middleware, limits and logger, writing here. `config` itself when it
      # already uses this store.
      def config_for(config)
        return config if config.store.equal?(@store)
        @lock.synchronize { @routed[config] ||= RoutedConfig.new(config, @store) }
      end

      # Names the Redis, never its password.
      def inspect = "#<#{self.class.name} #{location}>"

      alias_method :to_s, :inspect
    end
  end
end
