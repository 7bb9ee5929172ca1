# frozen_string_literal: true

require_relative "../dev_redis/project"

module Deckhand
  class CLI
    # Which Redis to use when none is configured. Outside production: this
    # project's development Redis when one runs (tmp/deckhand/redis.url), else
    # the local default (127.0.0.1:6379) if something answers there, else a
    # development Redis started now and shared with every later process of the
    # project (DevRedis::Project); the log says which. In production: an
    # error, never a silent stand-in.
    class RedisChoice
      def initialize(config, environment, root: Dir.pwd)
        @config = config
        @environment = environment
        @project = DevRedis::Project.new(root)
      end

      def resolve
        return if configured?
        return production if @environment == "production"
        if (url = @project.running_url)
          return use(url, "using this project's development Redis at #{url} (#{relative(@project.url_file)})")
        end
        return if DevRedis.answering?
        url, started = @project.find_or_start
        return use(url, "using this project's development Redis at #{url} (#{relative(@project.url_file)})") unless started
        use(url, "no Redis configured and none on 127.0.0.1:6379: started this project's development Redis for " \
          "#{@environment} at #{url} (data in #{relative(@project.data_dir)}, append-only; address in " \
          "#{relative(@project.url_file)}). Every deckhand of this project uses it; `deckhand dev-redis stop` ends it; " \
          "set REDIS_URL to use your own")
      end

      private

      def configured? = %i[url host path cluster].any? { |option| @config.redis.key?(option) }

      def production
        return if DevRedis.answering?
        raise ConfigError, "no Redis configured and none on 127.0.0.1:6379: set REDIS_URL " \
          "(or redis: {url: ...} in config/deckhand.yml)"
      end

      def use(url, message)
        @config.redis = @config.redis.merge(url: url)
        ENV["REDIS_URL"] = url
        @config.logger.info(message)
        nil
      end

      def relative(path) = path.delete_prefix("#{Dir.pwd}/")
    end
  end
end
