# frozen_string_literal: true

require_relative "config/redis_pool"
require_relative "config/default_job_options"
require_relative "loader"

# Sidekiq's top-level module in drop-in mode: configuration, logger and Redis
# access, all on Deckhand.config.
#
#   Sidekiq.configure_server { |config| config.concurrency = 5 }   # runs under `deckhand`
#   Sidekiq.configure_client { |config| config.redis = {url: ENV["REDIS_URL"]} }
#   Sidekiq.logger.info("hello")
module Sidekiq
  # The Sidekiq version drop-in mode stands in for (for gems that check
  # it): 8.1's or 7.3's (Deckhand::DropIn::Version).
  VERSION = Deckhand::DropIn.version.sidekiq_version
  MAJOR = Deckhand::DropIn.version.major
  NAME = "Sidekiq"

  # Marks drop-in mode for code that wants to know: `defined?(Sidekiq::DECKHAND)`.
  DECKHAND = Deckhand::VERSION

  # Sidekiq Pro's batches, loaded (and installed) on first use.
  autoload :Batch, "deckhand/sidekiq/batch"
  # Sidekiq's job checks for plugins that push by hand (`include Sidekiq::JobUtil`).
  autoload :JobUtil, "deckhand/sidekiq/job_util"
  autoload :Profiler, "deckhand/sidekiq/profiler"

  # Active Job's wrapper (Sidekiq::ActiveJob::Wrapper) and adapter, loaded
  # when first named, whether Active Support loaded before drop-in mode
  # (which then also sets them up once Active Job loads) or after it.
  autoload :ActiveJob, "deckhand/sidekiq/active_job"

  # The data API's classes (`sidekiq/api`), loaded when first named
  # (const_missing, below).
  API_CONSTANTS = %i[Stats Queue JobRecord JobSet SortedEntry ScheduledSet RetrySet DeadSet ProcessSet Process WorkSet Workers Work
    ApiUtils IterableJobQuery ProfileSet ProfileRecord].freeze

  @config_lock = Mutex.new

  class << self
    # A Sidekiq server has the data API loaded, so jobs and death handlers
    # name Sidekiq::DeadSet without requiring `sidekiq/api`: drop-in mode
    # loads it when one of its classes is first named. (Not autoload: the
    # API's files define these constants while loading, and an autoload
    # would have them require their own file again.)
    def const_missing(name)
      if name == :Enterprise
        require "deckhand/sidekiq/enterprise_crypto" # Sidekiq::Enterprise::Crypto.enable in an initializer
      elsif API_CONSTANTS.include?(name)
        require "deckhand/sidekiq/api"
      else
        return super
      end
      const_defined?(name, false) ? const_get(name, false) : super
    end

    # True inside a `deckhand` server process: the command says so when it
    # loads (Lifecycle.command!); the Railtie's share of the CLI does not.
    def server? = Deckhand::Lifecycle.command?

    # Runs the block in a server process; kept for configure_embed, which
    # runs every configure_server block too, as Sidekiq does.
    def configure_server(&block)
      (@server_blocks ||= []) << block
      yield default_configuration if server?
    end

    def configure_client
      yield default_configuration unless server?
    end

    # The Sidekiq::Config over Deckhand.config (the same object while
    # Deckhand.config stays). One a test helper puts in @config becomes the
    # default, Deckhand.config included.
    def default_configuration
      config = @config
      return config if config&.equal?(@built) && config.config.equal?(Deckhand.config)
      @config_lock.synchronize do
        if @config && !@config.equal?(@built)
          Deckhand.config = @config.config
        elsif @config.nil? || !@config.config.equal?(Deckhand.config)
          @config = Sidekiq::Config.new(Deckhand.config)
        end
        @built = @config
      end
    end

    def logger = default_configuration.logger

    # Sidekiq 8's load hooks (Sidekiq::Loader): `on_load(:api) { }`.
    def loader = @loader ||= Sidekiq::Loader.new

    def logger=(logger)
      default_configuration.logger = logger
    end

    def gem_version = Gem::Version.new(VERSION)

    def load_json(string) = JSON.parse(string)

    def dump_json(object) = JSON.generate(object)

    # Yields a connection answering Sidekiq's calls: conn.call("GET", key),
    # conn.get(key), conn.pipelined { |pipe| ... }. Inside Sidekiq::Client.via,
    # a connection to that Redis, as in Sidekiq.
    def redis(&block)
      raise ArgumentError, "Sidekiq.redis needs a block: Sidekiq.redis { |conn| conn.get(\"key\") }" unless block
      default_configuration.redis(&block)
    end

    # The pool Sidekiq.redis draws from (that of the Client.via block around the call, if any).
    def redis_pool = default_configuration.redis_pool

    # As in Sidekiq 7: :raise (the default) refuses arguments JSON would
    # change; false pushes what JSON makes of them, :warn logs each too
    # (Deckhand::DropIn::StrictArgs).
    def strict_args!(mode = :raise)
      Deckhand::DropIn::StrictArgs.mode = mode
      nil
    end

    # The options every job starts from (a class's sidekiq_options go on
    # top): a Hash to change in place, as Sidekiq's (DropIn::DefaultJobOptions).
    def default_job_options = Deckhand::DropIn::DefaultJobOptions.current

    # Adds to the options every job class starts from, as Sidekiq does:
    #   Sidekiq.default_job_options = {"backtrace" => true, "retry" => 5}
    def default_job_options=(options)
      raise ArgumentError, "default job options must be a Hash, got #{options.class}" unless options.is_a?(Hash)
      default_job_options.update(options.transform_keys(&:to_s))
    end

    # A server inside this process (Deckhand.embed, docs/embedding.md):
    # the block adjusts the default configuration (2 threads unless it says
    # otherwise), `run` on the result starts it, `stop` ends it.
    def configure_embed
      require "deckhand/sidekiq/embedded"
      config = default_configuration
      if config.config.booted?
        raise Deckhand::ConfigError, "Sidekiq.configure_embed: the configuration is frozen (a server already ran on it); " \
          "embed before calling run, once per process"
      end
      config.concurrency = 2
      @server_blocks&.each { |block| block.call(config) }
      yield config if block_given?
      Embedded.new(config)
    end

    # Sidekiq 8.1's switch for tests: :fake (the default), :inline or
    # :disable, for the block if one is given (Sidekiq::Testing's modes).
    def testing!(mode = :fake, &)
      raise "Unknown testing mode: #{mode}" unless %i[fake disable inline].include?(mode)
      require "sidekiq/test_api"
      Sidekiq::Testing.public_send(:"#{mode}!", &)
    end

    # nil, as in Sidekiq without Sidekiq Pro or Enterprise; a constant
    # defined since answers. Drop-in mode's Sidekiq::Enterprise (defined
    # when named, for its Crypto setup) is not Enterprise.
    def pro? = defined?(Sidekiq::Pro)

    def ent? = (defined?(Sidekiq::Enterprise) && !Sidekiq::Enterprise.const_defined?(:DECKHAND, false)) ? "constant" : nil
  end

  # Middleware classes include these in Sidekiq 7: they give `config`,
  # `logger` and `redis` helpers, as here.
  module ServerMiddleware
    attr_writer :config

    def config = @config || Sidekiq.default_configuration

    def logger = config.logger

    def redis(&) = config.redis(&)
  end

  ClientMiddleware = ServerMiddleware
end
