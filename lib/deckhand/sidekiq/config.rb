# frozen_string_literal: true

require_relative "config/configuration"
require_relative "config/capsule"
require_relative "config/lifecycle_events"
require_relative "job_logging"
require "json"
require_relative "../store/connection/info"

module Sidekiq
  # Sidekiq 7's configuration class in drop-in mode: what
  # `Sidekiq.configure_server` and `configure_client` yield, and
  # `Sidekiq.default_configuration`. Each one writes through to a
  # Deckhand::Config (the default one, or a new one for `Sidekiq::Config.new`),
  # which is what a Deckhand server, client and embedded server run on.
  #
  #   config = Sidekiq::Config.new(concurrency: 3)
  #   config.queues = %w[critical default]
  #   config.capsule("single") { |cap| cap.concurrency = 1; cap.queues = %w[single] }
  #   config.on(:startup) { Metrics.connect }
  #   config[:my_plugin_setting] = 5   # a plugin's own keys are kept as they are
  class Config < Deckhand::DropIn::Configuration
    # Sidekiq's keys with no Deckhand setting behind them: kept for the code
    # that reads them, as Sidekiq does. Not frozen, as Sidekiq's is not:
    # DEFAULTS[:on_complex_arguments] is where Sidekiq.strict_args! writes.
    DEFAULTS = {
      labels: [],
      require: ".",
      environment: nil,
      concurrency: 5,
      timeout: 25,
      average_scheduled_poll_interval: 2,
      on_complex_arguments: :raise,
      iteration: {max_job_runtime: nil, retry_backoff: 0},
      dead_max_jobs: 10_000,
      dead_timeout_in_seconds: 180 * 24 * 60 * 60,
      reloader: proc { |&block| block.call },
      backtrace_cleaner: ->(backtrace) { backtrace },
      redis_idle_timeout: nil,
      logged_job_attributes: ["bid", "tags"]
    }

    # Sidekiq's own keys that would change how its server fetches: Deckhand
    # has no such switch, so setting one raises rather than being ignored.
    NOT_HONOURED = {
      strict: "Deckhand orders queues by their weights: list them without weights for strict order",
      fetch_class: "Deckhand's fetch is its own (reliable, batched) and cannot be replaced",
      fetch_setup: "Deckhand's fetch is its own and takes no setup"
    }.freeze

    # A Hash of Sidekiq options builds a Deckhand::Config of its own; a
    # Deckhand::Config is wrapped as it is.
    def initialize(options = {})
      if options.is_a?(Deckhand::Config)
        super
        options = {}
      else
        super(Deckhand::Config.new(redis: Deckhand.default_redis))
        @sidekiq_logger = true
      end
      @options = DEFAULTS.except(*KEYS.keys).merge(iteration: DEFAULTS[:iteration].dup, logged_job_attributes: DEFAULTS[:logged_job_attributes].dup)
      @capsules = {}
      @events = Deckhand::DropIn::LifecycleEvents.new(config)
      options.each { |key, value| self[key] = value }
    end

    def [](key)
      key = key.to_sym
      return super if KEYS.key?(key)
      case key
      when :lifecycle_events then @events.lists
      when :error_handlers then error_handlers
      when :death_handlers then death_handlers
      else @options[key]
      end
    end

    def []=(key, value)
      name = key.to_sym
      if KEYS.key?(name)
        super
      else
        raise Deckhand::DropIn::Unsupported.new("Sidekiq option config[#{name.inspect}]", NOT_HONOURED[name]) if NOT_HONOURED.key?(name)
        job_logging(name, value)
        @options[name] = value
        # Stored retries' backtraces go through it too, as in Sidekiq.
        config.backtrace_cleaner = value if name == :backtrace_cleaner
      end
    end

    def fetch(key, *default, &) = key?(key) ? self[key] : @options.fetch(key.to_sym, *default, &)

    def key?(key) = KEYS.key?(key.to_sym) || %i[lifecycle_events error_handlers death_handlers].include?(key.to_sym) || @options.key?(key.to_sym)

    alias_method :has_key?, :key?

    def dig(key, *rest) = rest.empty? ? self[key] : self[key]&.dig(*rest)

    def merge!(options)
      options.each { |key, value| self[key] = value }
      self
    end

    # Sidekiq's lifecycle events: :startup, :quiet, :shutdown and :exit run as
    # Deckhand's; a valid Sidekiq event Deckhand never fires raises Unsupported.
    def on(event, &) = @events.on(event, &)

    def default_capsule(&) = capsule("default", &)

    # A Sidekiq::Capsule (made on first use), which becomes a Deckhand capsule.
    def capsule(name)
      name = name.to_s
      cap = (@capsules[name] ||= Sidekiq::Capsule.new(name, self))
      yield cap if block_given?
      cap
    end

    # Every capsule, "default" among them. Not through #capsule: code
    # that wraps that method (a test's double) may call this from inside it.
    def capsules
      @capsules["default"] ||= Sidekiq::Capsule.new("default", self)
      @capsules
    end

    def total_concurrency = capsules.each_value.sum(&:concurrency)

    def concurrency=(count)
      default_capsule.concurrency = Integer(count)
    end

    def queues=(list)
      default_capsule.queues = list
    end

    # Sidekiq's expanded list: a queue of weight 3 three times.
    def queues = default_capsule.queues

    # Sidekiq's redis block: a connection to this configuration's Redis
    # (the Client.via block's, inside one), opened again and the block run
    # once more after a failover error (READONLY), as Sidekiq does.
    def redis(&block)
      raise ArgumentError, "requires a block" unless block
      Deckhand::DropIn::RedisPool.lend(Deckhand::Client.via_target&.store || config.store, &block)
    end

    # Sidekiq's own pool for a configuration: 10 connections unless
    # `config.redis = {size: ...}` says otherwise, to the same Redis as the
    # configuration's store (a pool of its own, made on first use and again
    # after the Redis options change). Inside Client.via, that block's pool.
    def redis_pool
      via = Deckhand::Client.via_target
      return Deckhand::DropIn::RedisPool.for(via.store) if via
      own_pool(:config, 10)
    end

    # A pool of `size` connections to this configuration's Redis, kept under `name`.
    def own_pool(name, size)
      @own_pools ||= {}
      options = config.redis
      pool, built_for = @own_pools[name]
      return pool if pool && built_for.equal?(options)
      pool&.shutdown
      size = pool_sizing.fetch(:size, size) if name == :config
      store = Deckhand::Store.new(Deckhand::DevRedis::Project.fill_in(options, config.environment), size: size, pool_timeout: pool_sizing.fetch(:pool_timeout, 1))
      Deckhand::DropIn::RedisPool.for(store).tap { |built| @own_pools[name] = [built, options] }
    end

    def redis_info = Deckhand::Store::Connection::Info.fields(config.store)

    # A new Sidekiq::Config logs as Sidekiq does, built on first use (without
    # timestamps on Heroku, whose router stamps each line).
    def logger
      if @sidekiq_logger
        @sidekiq_logger = false
        config.logger = Sidekiq::Logger.new($stdout, level: :info).tap do |logger|
          logger.formatter = ENV["DYNO"] ? Sidekiq::Logger::Formatters::WithoutTimestamp.new : Sidekiq::Logger::Formatters::Pretty.new
        end
      end
      super
    end

    # nil silences the logger, as in Sidekiq.
    def logger=(logger)
      @sidekiq_logger = false
      if logger.nil?
        self.logger.level = Logger::FATAL
      else
        super
      end
    end

    # An error outside a job, as Sidekiq reports one: logged (the context as
    # JSON, the error, its backtrace through config[:backtrace_cleaner]),
    # then given to every error handler; a handler that raises is logged and
    # the others still run.
    def handle_exception(error, context = {})
      log_exception(error, context)
      config.error_handlers.each do |handler|
        handler.call(error, context)
      rescue Exception => e # standard:disable Lint/RescueException
        logger.error("!!! ERROR HANDLER THREW AN ERROR !!! #{e.class}: #{e.message}")
        logger.error(e.backtrace.join("\n")) if e.backtrace
      end
    end

    # Kept where Sidekiq 8 keeps it (config[:redis_idle_timeout]).
    def reap_idle_redis_connections(timeout = 60)
      super
      self[:redis_idle_timeout] = timeout
    end

    def average_scheduled_poll_interval=(seconds)
      self[:average_scheduled_poll_interval] = seconds
    end

    def freeze!
      config.freeze!
      @options.freeze
      true
    end

    # The context as JSON on a line of its own (Sidekiq 7) and on every
    # line as log context (Sidekiq 8: a=1).
    private def log_exception(error, context)
      Sidekiq::Context.with(context) do
        logger.warn(JSON.generate(context)) unless context.empty?
        logger.warn("#{error.class.name}: #{error.message}")
        cleaner = self[:backtrace_cleaner]
        logger.warn((cleaner ? cleaner.call(error.backtrace) : error.backtrace).join("\n")) if error.backtrace
      end
    end

    # A job logger class runs around each job in place of the server's own
    # lines, which skip_default_job_logging turns off (DropIn::JobLogging).
    private def job_logging(name, value)
      case name
      when :job_logger then Deckhand::DropIn::JobLogging.choose(config, value, self)
      when :skip_default_job_logging then Deckhand::DropIn::JobLogging.skip(config, value)
      end
    end

    def inspect = "#<#{self.class.name} concurrency=#{concurrency} queues=#{queues.inspect} capsules=#{capsules.keys.inspect}>"
  end
end
