# frozen_string_literal: true

require "logger"
require_relative "config/capsule"
require_relative "config/fleet_versions"
require_relative "config/operations"
require_relative "config/durability"
require_relative "config/numeric_settings"
require_relative "config/hook_settings"
require_relative "config/feature_settings"
require_relative "config/redis_settings"
require_relative "config/setting_readers"
require_relative "config/attachments"
require_relative "middleware/chain"
require_relative "logging/logger"

module Deckhand
  # Everything Deckhand needs to know, validated where it is set, frozen when a
  # server boots. Pass one explicitly, or let Deckhand.configure build the default.
  #
  #   config = Deckhand::Config.new(redis: {url: "redis://10.0.0.5:6379/2"}, concurrency: 20)
  #   config.queues = ["critical,3", "default,1"]
  #   config.server_middleware.add(MyTiming)
  #   Deckhand::Client.new(config: config).push("class" => "HardJob", "args" => [1])
  #
  # The settings are grouped by what they are for, one module each
  # (NumericSettings, RedisSettings, HookSettings, FeatureSettings,
  # OperationsSettings, DurabilitySettings); this class holds the rest and
  # the freeze at boot.
  class Config
    include NumericSettings
    include RedisSettings
    include HookSettings
    include FeatureSettings
    include OperationsSettings
    include DurabilitySettings
    include SettingReaders
    include Attachments

    # The values of #timestamps=.
    TIMESTAMP_FORMATS = %i[auto millis float].freeze

    # Every setting and its default; each reads back through Config::SettingReaders.
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
      cancel_grace: 10,
      reliable_push: false,
      reliable_push_limit: 1_000,
      refuse_evicting_redis: false,
      eviction_check_interval: 30,
      max_recoveries: 3,
      scheduler_interval: 2.0,
      scheduler_poll_average: nil,
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
      partitions: {},
      fair_queues: {},
      push_replicas: 0,
      push_replicas_timeout: 1.0,
      auto_balance: false,
      max_iteration_runtime: nil,
      death_handlers_on_discard: false
    }.freeze

    @boot_steps = []
    @defaults = SETTINGS

    class << self
      # The settings a new configuration starts from: SETTINGS, except where
      # drop-in mode starts from the Sidekiq version's (timestamps, threads...).
      attr_reader :defaults

      def defaults=(settings)
        unknown = settings.keys - SETTINGS.keys
        raise ConfigError, "unknown setting #{unknown.first.inspect}; known: #{SETTINGS.keys.join(", ")}" unless unknown.empty?
        @defaults = settings.freeze
      end

      # Runs the block on every configuration as it freezes at boot, before
      # its middleware and events freeze. Code that must add to a booting
      # server's configuration registers here when it is loaded
      # (Operations: its job-metrics middleware), so the configuration never
      # loads or names it.
      #
      #   Deckhand::Config.on_boot { |config| config.server_middleware.add(Audit) if config.labels.include?("audited") }
      def on_boot(&step)
        raise ArgumentError, "give a block called with the configuration" unless step
        @boot_steps = [*@boot_steps, step].freeze
        step
      end

      attr_reader :boot_steps
    end

    attr_reader :client_middleware, :server_middleware, :capsules

    def initialize(**settings)
      @frozen = false
      start_attachments
      @capsules = {}
      @periodic = PeriodicSchedule.new
      @client_middleware = Middleware::Chain.new
      @server_middleware = Middleware::Chain.new
      build_handlers
      Config.defaults.merge(settings).each do |name, value|
        raise ConfigError, "unknown setting #{name.inspect}; known: #{SETTINGS.keys.join(", ")}" unless SETTINGS.key?(name)
        public_send(:"#{name}=", value)
      end
    end

    # The default capsule's queues: names, or "name,weight" for weighted-random order.
    def queues=(list)
      change!(:queues)
      Capsule.new("default", concurrency: 1, queues: list) # validates, names the bad entry
      @queues = Array(list).dup.freeze
    end

    # How job timestamps are written: :auto (follow the fleet), :millis (Sidekiq 8) or :float (Sidekiq 7).
    def timestamps=(format)
      change!(:timestamps)
      format = format.to_sym
      unless TIMESTAMP_FORMATS.include?(format)
        raise ConfigError, "timestamps must be :auto (follow the fleet), :millis (Sidekiq 8) or :float (Sidekiq 7), got #{format.inspect}"
      end
      @timestamps = format
    end

    # The format to write now: the setting, or with :auto the fleet's
    # (Config::FleetVersions). timestamps_setting is the setting itself.
    def timestamps
      return @timestamps unless @timestamps == :auto
      fleet_versions.timestamps
    end

    # The timestamps setting as given (:auto included).
    def timestamps_setting = @timestamps

    # The Sidekiq versions sharing this configuration's Redis, and what is
    # written for them (timestamps, Active Job's wrapper class, metrics).
    def fleet_versions = @fleet_versions ||= FleetVersions.new(self)

    # A name shown beside the process in the dashboard.
    def tag=(value)
      change!(:tag)
      @tag = value.to_s.freeze
    end

    # Labels shown beside the process in the dashboard.
    def labels=(value)
      change!(:labels)
      @labels = Array(value).map(&:to_s).freeze
    end

    # The application's environment; nil reads APP_ENV, RAILS_ENV, RACK_ENV, else "development".
    def environment=(value)
      change!(:environment)
      @environment = (value || ENV["APP_ENV"] || ENV["RAILS_ENV"] || ENV["RACK_ENV"] || "development").to_s.freeze
    end

    # Adds a thread pool with its own queues. See Config::Capsule. With a
    # block, the capsule gets a server middleware chain of its own, a copy of
    # server_middleware as it stands, which the block may change:
    #
    #   c.capsule("reports", concurrency: 2, queues: ["reports"]) { |cap| cap.server_middleware.add ReportTenant }
    def capsule(name, concurrency:, queues:, server_middleware: nil, fibers: false)
      change!(:capsules)
      name = name.to_s
      raise ConfigError, "capsule #{name.inspect} is reserved for the top-level queues and concurrency" if name == "default"
      server_middleware ||= @server_middleware.dup if block_given?
      capsule = Capsule.new(name, concurrency: concurrency, queues: queues, server_middleware: server_middleware, fibers: fibers)
      yield capsule if block_given?
      @capsules[name] = capsule
    end

    # The default capsule (from concurrency and queues) and any added ones.
    def all_capsules
      [Capsule.new("default", concurrency: concurrency, queues: queues), *@capsules.values]
    end

    # Threads over every capsule.
    def total_concurrency = all_capsules.sum(&:concurrency)

    # The capsules a server runs: each partitioned queue in place of its
    # partitions (Config::Partitions#expand).
    def server_capsules = all_capsules.map { |capsule| partitions.expand(capsule) }

    # The logger everything of this configuration logs to (to $stdout unless set).
    def logger = @logger ||= Logging::Logger.build

    # Sets the logger (any Logger-like object): `config.logger = Rails.logger`.
    def logger=(logger)
      change!(:logger)
      @logger = logger
    end

    # True once a server booted on this configuration (#freeze!). Not
    # Object#frozen?: the configuration object itself stays a live object.
    def booted? = @frozen

    # Never the settings themselves: the Redis options may hold a password,
    # and an object's inspect reaches logs and error messages (a
    # NoMethodError on anything holding a configuration prints it).
    #
    #   Deckhand::Config.new(redis: {url: "redis://:secret@db:6379"}).inspect
    #   # => "#<Deckhand::Config concurrency=5 queues=[\"default\"]>"
    def inspect = "#<#{self.class.name} concurrency=#{@concurrency} queues=#{@queues.inspect}>"

    # Called when a server boots: from here on every setter raises.
    def freeze!
      Config.boot_steps.each { |step| step.call(self) } unless @frozen
      @client_middleware.freeze
      @server_middleware.freeze
      @capsules.each_value { |capsule| capsule.server_middleware&.freeze }
      @capsules.freeze
      @periodic.freeze
      freeze_handlers
      @frozen = true
      self
    end

    private

    def change!(name)
      return unless @frozen
      raise ConfigError, "cannot change #{name}: the configuration is frozen once the server has booted; " \
        "set it in Deckhand.configure (or the config file) before boot"
    end
  end
end
