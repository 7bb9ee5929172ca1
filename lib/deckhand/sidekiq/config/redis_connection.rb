# frozen_string_literal: true

require "uri"
require_relative "redis_pool"
require_relative "redis_client_adapter"

module Sidekiq
  # `Sidekiq::RedisConnection.create` in drop-in mode: a new pool
  # (Deckhand::DropIn::RedisPool, over a Deckhand::Store of its own) on each
  # call, what a sharded application hands to Sidekiq::Client.via,
  # `sidekiq_options pool:` and `set(pool:)`. Sidekiq's defaults: 5
  # connections, a 1 second checkout wait, a 3 second network timeout,
  # REDIS_PROVIDER naming the variable that holds the URL.
  #
  #   SHARD_TWO = Sidekiq::RedisConnection.create(url: ENV["SHARD_TWO_URL"], size: 10)
  #   SHARD_TWO.with { |conn| conn.get("key") }
  #   Sidekiq::Client.via(SHARD_TWO) { ReportJob.perform_async }
  module RedisConnection
    REDACTED = "REDACTED"

    class << self
      def create(options = {})
        options = symbolize(options.to_h)
        options[:url] ||= determine_redis_provider
        options.delete(:url) if options[:url].nil?
        logger = options.delete(:logger)
        logger&.info { "Sidekiq #{Sidekiq::VERSION} connecting to Redis with options #{scrub(options)}" }
        check!(options)
        options.delete(:pool_name)
        size = options.delete(:size) || 5
        pool_timeout = options.delete(:pool_timeout) || 1
        Deckhand::DropIn::RedisPool.for(Deckhand::Store.new(client_options(options), size: size, pool_timeout: pool_timeout))
      end

      private

      def check!(options)
        if options[:namespace]
          raise ArgumentError, "Your Redis configuration uses the namespace '#{options[:namespace]}' but this feature is " \
            "not available: Sidekiq 7 and Deckhand keep their keys at the top of the database. Give each application " \
            "its own Redis database (redis://host:6379/1) instead of a namespace"
        end
        # RuntimeError, as Sidekiq raises it.
        raise "Sidekiq 7 and Deckhand speak RESP3 only: remove `protocol: 2` from the Redis options" if options[:protocol] == 2
        return unless options.key?(:nodes) || options.key?(:cluster)
        raise ArgumentError, "Sidekiq::RedisConnection.create makes a pool for one Redis server; for a Redis Cluster " \
          "turn on Deckhand's cluster mode (redis: {cluster: [...]}, docs/cluster.md)"
      end

      # Sidekiq's option names, in redis-client's words.
      def client_options(options)
        options[:timeout] = options.delete(:network_timeout) if options.key?(:network_timeout)
        options[:timeout] ||= 3
        options[:name] = options.delete(:master_name) if options.key?(:master_name)
        options[:role] = options[:role].to_sym if options.key?(:role)
        options[:driver] = options[:driver].to_sym if options.key?(:driver)
        options[:reconnect_attempts] ||= 1
        # How Sidekiq 8 names its connections to Redis (CLIENT SETINFO lib-name).
        driver_info = Deckhand::DropIn.version.driver_info
        options[:driver_info] ||= driver_info if driver_info
        options
      end

      def symbolize(value)
        case value
        when Hash then value.to_h { |key, inner| [key.to_sym, symbolize(inner)] }
        when Array then value.map { |inner| symbolize(inner) }
        else value
        end
      end

      # The options as a log line may show them: no password, no SSL objects.
      def scrub(options)
        shown = options.except(:ssl_params)
        shown[:password] = REDACTED if shown.key?(:password)
        shown[:sentinel_password] = REDACTED if shown.key?(:sentinel_password)
        shown[:url] = redact_url(shown[:url]) if shown[:url].is_a?(String)
        if shown[:sentinels].is_a?(Array)
          shown[:sentinels] = shown[:sentinels].map do |sentinel|
            if sentinel.is_a?(String) then redact_url(sentinel)
            elsif sentinel.is_a?(Hash) && sentinel.key?(:password) then sentinel.merge(password: REDACTED)
            else sentinel
            end
          end
        end
        shown
      end

      def redact_url(url)
        uri = URI.parse(url)
        return url unless uri.password
        uri.password = REDACTED
        uri.to_s
      rescue URI::InvalidURIError
        REDACTED
      end

      # The variable REDIS_PROVIDER names (Heroku add-ons publish their own),
      # else REDIS_URL.
      def determine_redis_provider
        provider = ENV["REDIS_PROVIDER"]
        if provider&.include?(":")
          raise "REDIS_PROVIDER names the environment variable that holds the Redis URL, not the URL itself: " \
            "set REDIS_PROVIDER=REDISTOGO_URL (say) and REDISTOGO_URL=redis://host:6379/0"
        end
        ENV[provider.to_s] || ENV["REDIS_URL"]
      end
    end
  end
end
