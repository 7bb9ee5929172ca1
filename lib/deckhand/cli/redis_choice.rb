# frozen_string_literal: true

module Deckhand
  class CLI
    # Which Redis to use when none is configured. In development: the local
    # default (127.0.0.1:6379) if something answers there, otherwise a private
    # redis-server under ./tmp/ that lives as long as this process, announced in
    # the log. In production: an error, never a silent stand-in.
    class RedisChoice
      DIR = "tmp/deckhand-redis"

      def initialize(config, environment)
        @config = config
        @environment = environment
      end

      # Returns the DevRedis it started, if any.
      def resolve
        return nil if configured?
        return nil if DevRedis.answering?
        if @environment == "production"
          raise ConfigError, "no Redis configured and none on 127.0.0.1:6379: set REDIS_URL " \
            "(or redis: {url: ...} in config/deckhand.yml)"
        end
        start_private
      end

      private

      def configured? = @config.redis.key?(:url) || @config.redis.key?(:host) || @config.redis.key?(:path)

      def start_private
        redis = DevRedis.start(dir: DIR)
        @config.redis = @config.redis.merge(url: redis.url)
        ENV["REDIS_URL"] = redis.url
        @config.logger.info("no Redis configured and none on 127.0.0.1:6379: started a private redis-server " \
          "for #{@environment} at #{redis.url} (data in #{DIR}, append-only). Set REDIS_URL to use your own")
        redis
      end
    end
  end
end
