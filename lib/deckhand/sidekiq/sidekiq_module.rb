# frozen_string_literal: true

require_relative "../store/app_connection"

# Sidekiq's top-level module in drop-in mode: configuration, logger and Redis
# access, all on Deckhand.config.
#
#   Sidekiq.configure_server { |config| config.concurrency = 5 }   # runs under `deckhand`
#   Sidekiq.configure_client { |config| config.redis = {url: ENV["REDIS_URL"]} }
#   Sidekiq.logger.info("hello")
module Sidekiq
  # The Sidekiq API level drop-in mode answers to (for gems that check it).
  VERSION = "7.3.0"
  NAME = "Sidekiq"

  # Marks drop-in mode for code that wants to know: `defined?(Sidekiq::DECKHAND)`.
  DECKHAND = Deckhand::VERSION

  # Sidekiq Pro's batches, loaded (and installed) on first use.
  autoload :Batch, "deckhand/sidekiq/batch"

  class << self
    # True inside a `deckhand` server process.
    def server? = !defined?(Deckhand::CLI).nil?

    def configure_server
      yield default_configuration if server?
    end

    def configure_client
      yield default_configuration unless server?
    end

    def default_configuration = Deckhand::DropIn::Configuration.new(Deckhand.config)

    def logger = Deckhand.config.logger

    def logger=(logger)
      Deckhand.config.logger = logger
    end

    def gem_version = Gem::Version.new(VERSION)

    def load_json(string) = JSON.parse(string)

    def dump_json(object) = JSON.generate(object)

    # Yields a connection answering Sidekiq's calls: conn.call("GET", key),
    # conn.get(key), conn.pipelined { |pipe| ... }. Inside Sidekiq::Client.via,
    # a connection to that Redis, as in Sidekiq.
    def redis
      raise ArgumentError, "Sidekiq.redis needs a block: Sidekiq.redis { |conn| conn.get(\"key\") }" unless block_given?
      store = Deckhand::Client.via_target&.store || Deckhand.config.store
      Deckhand::Store::AppConnection.lend(store) { |conn| yield conn }
    end

    def redis_pool
      raise Deckhand::DropIn::Unsupported.new("Sidekiq.redis_pool", "use Sidekiq.redis { |conn| ... }")
    end

    # As in Sidekiq 7: :raise (the default) refuses arguments JSON would
    # change; false pushes what JSON makes of them, :warn logs each too
    # (Deckhand::DropIn::StrictArgs).
    def strict_args!(mode = :raise)
      Deckhand::DropIn::StrictArgs.mode = mode
      nil
    end

    # The options every job starts from (a class's sidekiq_options go on top).
    def default_job_options = Deckhand::Job::Options::DEFAULTS

    def default_job_options=(options)
      raise Deckhand::DropIn::Unsupported.new("Sidekiq.default_job_options=", "set options in each class's sidekiq_options (or a base class); got #{options.inspect}")
    end

    def configure_embed(...)
      raise Deckhand::DropIn::Unsupported.new("Sidekiq.configure_embed", "use Deckhand::Embedded (docs/embedding.md)")
    end

    def pro? = false

    def ent? = false
  end

  # Middleware classes include these in Sidekiq 7: they give `config`,
  # `logger` and `redis` helpers, as here.
  module ServerMiddleware
    attr_accessor :config

    def logger = Sidekiq.logger

    def redis(&) = Sidekiq.redis(&)
  end

  ClientMiddleware = ServerMiddleware
end
