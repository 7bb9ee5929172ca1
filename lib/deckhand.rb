# frozen_string_literal: true

require_relative "deckhand/version"
require_relative "deckhand/errors"
require_relative "deckhand/monotonic"
require_relative "deckhand/store"
require_relative "deckhand/config"
require_relative "deckhand/payload"
require_relative "deckhand/client"
require_relative "deckhand/job"
require_relative "deckhand/iterable_job"
require_relative "deckhand/profiler"
require_relative "deckhand/lifecycle"
require_relative "deckhand/limiter"
require_relative "deckhand/dev_redis/project"

# Fast, reliable background jobs for Ruby, on Redis.
#
#   class WelcomeEmailJob
#     include Deckhand::Job
#     deckhand_options queue: "mailers", retry: 10
#
#     def perform(user_id)
#       UserMailer.welcome(User.find(user_id)).deliver_now
#     end
#   end
#
#   WelcomeEmailJob.perform_async(42)   # => "b4a577edbccf1d805744efa9"
#
# Run `deckhand -r ./app.rb` to work the queues. See README.md.
module Deckhand
  @config_lock = Mutex.new

  class << self
    # The default configuration, used by job classes and Deckhand::Client when no
    # other is given. Built from the environment (REDIS_URL) on first use; in
    # development with no Redis given, it uses this project's development
    # Redis (DevRedis::Project.fill_in), started on first use if none answers.
    def config
      @config || @config_lock.synchronize { @config ||= default_config }
    end

    # Changes the default configuration.
    #
    #   Deckhand.configure do |c|
    #     c.redis = {url: ENV.fetch("REDIS_URL")}
    #     c.concurrency = 20
    #   end
    def configure
      yield config
      config
    end

    # Replaces the default configuration (tests, embedding, the CLI).
    def config=(config)
      raise ArgumentError, "expected a Deckhand::Config, got #{config.class}" unless config.is_a?(Config)
      @config_lock.synchronize { @config = config }
    end

    # The logger of the default configuration (Deckhand.config.logger).
    def logger = config.logger

    # A fresh default configuration (see #config).
    def default_config
      config = Config.new(redis: default_redis)
      config.fill_in_redis { |redis, environment| DevRedis::Project.fill_in(redis, environment) }
      config
    end

    # True in the one process that leads periodic jobs (Deckhand::Lifecycle).
    def leader? = Lifecycle.leader?

    # REDIS_URL names one Redis, or with commas the nodes of a Redis
    # Cluster ("redis://10.0.0.1:7000,redis://10.0.0.2:7000": cluster mode).
    def default_redis = redis_options(ENV["REDIS_URL"])

    # The redis settings a URL names (REDIS_URL, a command's --redis).
    def redis_options(url)
      return {} if url.nil? || url.empty?
      nodes = url.split(",").map(&:strip).reject(&:empty?)
      (nodes.size > 1) ? {cluster: nodes} : {url: url}
    end
  end
end
