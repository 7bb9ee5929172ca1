# frozen_string_literal: true

require "logger"
require_relative "config/capsule"
require_relative "config/batches"
require_relative "config/encryption"
require_relative "config/periodic_schedule"
require_relative "config/fleet_timestamps"
require_relative "config/events"
require_relative "config/operations"
require_relative "config/throttle"
require_relative "middleware/chain"
require_relative "logging/logger"
require_relative "dev_redis/project"
require_relative "config/redis_url"
require_relative "config/durability"

module Deckhand
  # Everything Deckhand needs to know, validated where it is set, frozen when a
  # server boots. Pass one explicitly, or let Deckhand.configure build the default.
  #
  #   config = Deckhand::Config.new(redis: {url: "redis://10.0.0.5:6379/2"}, concurrency: 20)
  #   config.queues = ["critical,3", "default,1"]
  #   config.server_middleware.add(MyTiming)
  #   Deckhand::Client.new(config: config).push("class" => "HardJob", "args" => [1])
  class Config
    include OperationsSettings
    include DurabilitySettings

    TIMESTAMP_FORMATS = %i[auto millis float].freeze

    SETTINGS = {
      redis: {},
      concurrency: 10,
      queues: ["default"],
      timeout: 25,
      max_retries: 25,
      dead_max_jobs: 10_000,
      dead_timeout: 180 * 24 * 60 * 60,
      max_payload_bytes: 1024 * 1024,
      timestamps: :auto,
      backtrace_lines: 25,
      heartbeat_interval: 2,
      heartbeat_ttl: 40,
      reaper_interval: 2,
      hung_after: 300,
      reliable_push: false,
      reliable_push_limit: 1_000,
      max_recoveries: 3,
      scheduler_interval: 2.0,
      prefetch: 0.0,
      fetch_window: 0.01,
      tag: "",
      labels: [],
      environment: nil,
      periodic: {},
      metrics_port: nil,
      health_check: nil,
      statsd: nil,
      throttle: {},
      push_replicas: 0,
      push_replicas_timeout: 1.0
    }.freeze

    attr_reader(*(SETTINGS.keys - %i[periodic timestamps]))
    attr_reader :client_middleware, :server_middleware, :death_handlers, :error_handlers, :expired_handlers, :capsules

    # What each job runs inside (Rails sets its reloader): an object answering
    # `wrap { ... }`, or nil. Job classes are looked up inside it too, so code
    # reloaded in development is the code that runs.
    attr_reader :executor

    # True when job classes may be reloaded while the server runs (Rails in
    # development): classes are then looked up for every job, not cached.
    attr_reader :reloading

    def initialize(**settings)
      @frozen = false
      @capsules = {}
      @periodic = PeriodicSchedule.new
      @client_middleware = Middleware::Chain.new
      @server_middleware = Middleware::Chain.new
      @death_handlers = []
      @error_handlers = []
      @expired_handlers = []
      SETTINGS.merge(settings).each do |name, value|
        raise ConfigError, "unknown setting #{name.inspect}; known: #{SETTINGS.keys.join(", ")}" unless SETTINGS.key?(name)
        public_send(:"#{name}=", value)
      end
    end

    def redis=(options)
      change!(:redis)
      raise ConfigError, "redis must be a Hash of redis-client options, like {url: \"redis://host:6379/0\"}" unless options.is_a?(Hash)
      options = options.transform_keys(&:to_sym)
      RedisUrl.check!(options[:url]) unless options[:url].nil?
      RedisUrl.check_cluster!(options[:cluster], options[:url]) unless options[:cluster].nil?
      @redis = options.freeze
    end

    # name => [type, allowed range]
    NUMBERS = {
      concurrency: [Integer, 1..1000],
      timeout: [Numeric, 0..3600],
      max_retries: [Integer, 0..1000],
      dead_max_jobs: [Integer, 0..100_000_000],
      dead_timeout: [Numeric, 0..(10 * 365 * 86_400)],
      max_payload_bytes: [Integer, 64..(512 * 1024 * 1024)],
      backtrace_lines: [Integer, 0..1000],
      heartbeat_interval: [Numeric, 0.05..60],
      heartbeat_ttl: [Integer, 1..3600],
      reaper_interval: [Numeric, 0.05..600],
      hung_after: [Numeric, 1..86_400],
      reliable_push_limit: [Integer, 1..10_000_000],
      max_recoveries: [Integer, 1..1000],
      scheduler_interval: [Numeric, 0.01..600],
      prefetch: [Numeric, 0..10],
      fetch_window: [Numeric, 0..1]
    }.freeze

    NUMBERS.each do |name, (type, range)|
      define_method(:"#{name}=") do |value|
        change!(name)
        unless value.is_a?(type) && range.cover?(value)
          kind = (type == Integer) ? "an Integer" : "a number"
          raise ConfigError, "#{name} must be #{kind} from #{range.min} to #{range.max}, got #{value.inspect}"
        end
        instance_variable_set(:"@#{name}", value)
      end
    end

    def queues=(list)
      change!(:queues)
      Capsule.new("default", concurrency: 1, queues: list) # validates, names the bad entry
      @queues = Array(list).dup.freeze
    end

    def timestamps=(format)
      change!(:timestamps)
      format = format.to_sym
      unless TIMESTAMP_FORMATS.include?(format)
        raise ConfigError, "timestamps must be :auto (follow the fleet), :millis (Sidekiq 8) or :float (Sidekiq 7), got #{format.inspect}"
      end
      @timestamps = format
    end

    # The format to write now: the setting, or with :auto the fleet's
    # (Config::FleetTimestamps). timestamps_setting is the setting itself.
    def timestamps
      return @timestamps unless @timestamps == :auto
      fleet_timestamps.format(store)
    end

    def timestamps_setting = @timestamps

    def fleet_timestamps = @fleet_timestamps ||= FleetTimestamps.new(self)

    def tag=(value)
      change!(:tag)
      @tag = value.to_s.freeze
    end

    def labels=(value)
      change!(:labels)
      @labels = Array(value).map(&:to_s).freeze
    end

    def environment=(value)
      change!(:environment)
      @environment = (value || ENV["APP_ENV"] || ENV["RAILS_ENV"] || ENV["RACK_ENV"] || "development").to_s.freeze
    end

    # Adds a thread pool with its own queues. See Config::Capsule.
    def capsule(name, concurrency:, queues:)
      change!(:capsules)
      name = name.to_s
      raise ConfigError, "capsule #{name.inspect} is reserved for the top-level queues and concurrency" if name == "default"
      @capsules[name] = Capsule.new(name, concurrency: concurrency, queues: queues)
    end

    # The default capsule (from concurrency and queues) and any added ones.
    def all_capsules
      [Capsule.new("default", concurrency: concurrency, queues: queues), *@capsules.values]
    end

    def total_concurrency = all_capsules.sum(&:concurrency)

    # Called with (payload_hash, exception) when a job goes to the dead set.
    def on_death(&block) = add_handler(@death_handlers, block)

    # Called with (exception, context_hash) for errors outside job code and for job failures.
    def on_error(&block) = add_handler(@error_handlers, block)

    # Called with (payload_hash) when a job is dropped unstarted because its
    # expires_in passed (docs/job-options.md).
    #
    #   config.on_expired { |job| StatsD.increment("jobs.expired", tags: ["class:#{job["class"]}"]) }
    def on_expired(&block) = add_handler(@expired_handlers, block)

    # Blocks run at :startup, :quiet and :shutdown (Config::Events).
    def events = @events ||= Events.new

    # Defaults for batches (Config::Batches): callback_queue, success_ttl, idle_ttl.
    def batches = @batches ||= Batches.new

    def batches=(settings)
      change!(:batches)
      raise ConfigError, "batches must be a Hash like {callback_queue: \"callbacks\"}, got #{settings.inspect}" unless settings.is_a?(Hash)
      @batches = Batches.new(**settings.transform_keys(&:to_sym))
    end

    # Keys for encrypted arguments (Config::Encryption); nil when not set.
    attr_reader :encryption_keys

    # Sets the keys for jobs with `deckhand_options encrypt: true`: new jobs
    # are sealed with `active_version`, the block gives the 32 key bytes of
    # any version (docs/job-options.md).
    def encryption(active_version:, &block)
      change!(:encryption)
      @encryption_keys = Encryption.new(active_version, block)
    end

    # Queue throttles (Config::Throttle): queue => {rate:, per:} and/or {concurrency:}.
    def throttle=(queues)
      change!(:throttle)
      @throttle = queues.is_a?(Throttle) ? queues : Throttle.new(queues)
    end

    # Reliable push: when Redis cannot be reached, pushes wait in memory (up
    # to reliable_push_limit jobs) and are written in order once it answers.
    # See Client::PushBuffer for what this can and cannot save.
    def reliable_push=(value)
      change!(:reliable_push)
      raise ConfigError, "reliable_push must be true or false, got #{value.inspect}" unless [true, false].include?(value)
      @reliable_push = value
    end

    # The buffer of this configuration's reliable pushes, built on first use
    # (and again in a forked child: a parent's waiting jobs are its own).
    def push_buffer
      return @push_buffer if @push_buffer && @push_buffer_pid == ::Process.pid
      @push_buffer_pid = ::Process.pid
      @push_buffer = Client::PushBuffer.new(self)
    end

    # Periodic (cron) jobs (Config::PeriodicSchedule): with a block, yields it to
    # register entries; `periodic = {jobs: {...}}` adds a config file's.
    def periodic
      return @periodic unless block_given?
      change!(:periodic)
      yield @periodic
      @periodic
    end

    def periodic=(settings)
      change!(:periodic)
      @periodic.apply(settings)
    end

    def executor=(executor)
      change!(:executor)
      raise ConfigError, "executor must answer wrap { ... } (like a Rails reloader), got #{executor.inspect}" unless executor.nil? || executor.respond_to?(:wrap)
      @executor = executor
    end

    # What a failed job's backtrace goes through before it is stored (a
    # callable taking and returning an Array of lines, such as
    # `->(lines) { Rails.backtrace_cleaner.clean(lines) }`), or nil.
    attr_reader :backtrace_cleaner

    def backtrace_cleaner=(cleaner)
      change!(:backtrace_cleaner)
      raise ConfigError, "backtrace_cleaner must answer call(lines), got #{cleaner.inspect}" unless cleaner.nil? || cleaner.respond_to?(:call)
      @backtrace_cleaner = cleaner
    end

    def reloading=(value)
      change!(:reloading)
      @reloading = value ? true : false
    end

    def logger = @logger ||= Logging::Logger.build

    def logger=(logger)
      change!(:logger)
      @logger = logger
    end

    # The Redis connection pool, built on first use and again in a forked child.
    def store
      return @store if @store && @store_pid == ::Process.pid
      @store_pid = ::Process.pid
      @store = Store.new(DevRedis::Project.fill_in(@redis, environment), size: total_concurrency + 5)
      @store.durability = durability
      @store
    end

    # The store's layout (Store::Layout::Plain, or Store::Layout::Cluster in
    # cluster mode, which needs the store for the queues' placements).
    def layout = Store::ClusterMode.nodes(@redis) ? store.layout : Store::Layout::Plain

    # True once a server booted on this configuration (#freeze!). Not
    # Object#frozen?: the configuration object itself stays a live object.
    def booted? = @frozen

    # Called when a server boots: from here on every setter raises.
    def freeze!
      install_operations unless @frozen
      @client_middleware.freeze
      @server_middleware.freeze
      @death_handlers.freeze
      @error_handlers.freeze
      @expired_handlers.freeze
      @capsules.freeze
      @periodic.freeze
      events.freeze
      @frozen = true
      self
    end

    private

    def change!(name)
      return unless @frozen
      raise ConfigError, "cannot change #{name}: the configuration is frozen once the server has booted; " \
        "set it in Deckhand.configure (or the config file) before boot"
    end

    def add_handler(list, block)
      change!(:handlers)
      raise ArgumentError, "give a block" unless block
      list << block
    end
  end
end
