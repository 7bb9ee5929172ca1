# frozen_string_literal: true

require_relative "../deckhand"
require_relative "server"
require_relative "dev_redis"
require_relative "cli/command"
require_relative "cli/command_line"
require_relative "cli/config_choice"
require_relative "server/signals"
require_relative "cli/redis_choice"
require_relative "cli/queue_check"
require_relative "swarm"
require_relative "lifecycle"

module Deckhand
  # `deckhand [options]`: boots the application and runs a server until TERM/INT.
  #
  #   deckhand -r ./app.rb -c 20 -q critical,3 -q default,1 -g reports:1:reports
  #
  # Signals: TSTP quiets (finish running jobs, take no more), TERM and INT stop
  # (quiet, wait up to -t seconds, hand unfinished jobs back, exit 0), TTIN logs
  # every thread's backtrace.
  class CLI
    # Subcommands, loaded only when asked for: a server never loads Rack.
    SUBCOMMANDS = {
      "web" => ["cli/web_command", :WebCommand],
      "migrate" => ["cli/migrate_command", :MigrateCommand],
      "dev-redis" => ["cli/dev_redis_command", :DevRedisCommand],
      "top" => ["cli/top_command", :TopCommand],
      "placement" => ["cli/placement_command", :PlacementCommand],
      "cancel" => ["cli/cancel_command", :CancelCommand],
      "classes" => ["cli/classes_command", :ClassesCommand]
    }.freeze

    include Command

    def run
      return subcommand(*SUBCOMMANDS[@argv.first]) if SUBCOMMANDS.key?(@argv.first)
      options = CommandLine.parse(@argv)
      return @out.puts(options[:help]) || 0 if options[:help]
      return @out.puts("deckhand #{VERSION}") || 0 if options[:version]
      config = boot(options)
      return Swarm.from_settings(config, @settings).run if Swarm.wanted?(@settings)
      serve(config)
    rescue ConfigError, RedisError => e
      report("deckhand", e)
    end

    private

    def subcommand(path, name)
      require_relative path
      CLI.const_get(name).run(@argv.drop(1), out: @out, err: @err)
    end

    def boot(options)
      environment = options[:environment] || ENV["APP_ENV"] || ENV["RAILS_ENV"] || ENV["RACK_ENV"] || "development"
      files = ConfigChoice.new(options[:config_file], environment)
      settings = files.settings.merge(options)
      settings[:environment] = environment
      @settings = settings
      Swarm.wanted?(settings) # refuses a bad -P / --max-memory before a slow application boot
      Swarm::Settings.max_memory_mb(settings[:max_memory])
      config = build_config(settings)
      files.notes.each { |level, note| config.logger.public_send(level, note) }
      Deckhand.config = config
      load_application(settings[:require])
      apply(config, settings) # the command line wins over what the application set
      choose_redis(config, environment)
      config.freeze!
      check_redis(config)
      QueueCheck.new(config).warn_unworked
      config
    end

    def build_config(settings)
      config = Config.new(environment: settings[:environment], redis: Deckhand.default_redis)
      config.logger = Logging::Logger.build($stdout, format: settings[:log_format] || :plain,
        level: settings[:verbose] ? ::Logger::DEBUG : ::Logger::INFO)
      apply(config, settings)
      config
    end

    # Settings copied onto the configuration as given; redis and environment
    # are resolved first (build_config, choose_redis).
    SETTINGS = (Config::SETTINGS.keys - %i[redis environment]).freeze

    def apply(config, settings)
      SETTINGS.each { |name| config.public_send(:"#{name}=", settings[name]) if settings.key?(name) }
      config.redis = Deckhand.default_redis.merge(settings[:redis].transform_keys(&:to_sym)) if settings[:redis]
      Array(settings[:capsules]).each do |spec|
        config.capsule(spec["name"], concurrency: spec["concurrency"], queues: spec["queues"], fibers: spec.fetch("fibers", false)) unless config.capsules.key?(spec["name"].to_s)
      end
    end

    def load_application(path)
      path ||= "config/environment.rb" if File.exist?("config/environment.rb")
      return warn_no_application unless path
      path = File.join(path, "config/environment.rb") if File.directory?(path)
      raise ConfigError, "-r #{path}: no such file; give the file that loads your jobs, or a Rails app directory" unless File.exist?(path)
      require File.expand_path(path)
    end

    def warn_no_application
      Deckhand.config.logger.warn("loaded no application: no -r given and no config/environment.rb in #{Dir.pwd}, " \
        "so this server knows no job classes and every job it fetches fails. Give the file that loads your jobs " \
        "(deckhand -r ./app.rb) or start it in your Rails app's directory")
    end

    def choose_redis(config, environment)
      RedisChoice.new(config, environment).resolve
    end

    # The eviction policy is looked at by each server as it starts (and
    # warned about there, Server::Chores::EvictionWatch); a refusal comes here
    # first, before a swarm forks workers that would each refuse.
    def check_redis(config)
      config.store.verify!
      Server::Chores::EvictionWatch.refuse!(config.store) if config.refuse_evicting_redis
    end

    # Exit status 1 when the server gave up on a crashing part of itself, so
    # whatever runs this process replaces it.
    def serve(config)
      signals = nil
      launcher = Server::Launcher.new(config, on_fatal: ->(_error) { signals.fatal! }, eviction_told: @eviction_told || [])
      signals = Server::Signals.new(launcher, config.logger)
      signals.trap
      launcher.start
      systemd = Operations.systemd(launcher) # Type=notify: READY=1, watchdog pings
      outcome = signals.wait_for_stop
      systemd&.stopping
      launcher.stop
      (outcome == :fatal) ? 1 : 0
    end
  end

  # A process that loaded the command is a server process (Rails' Railtie asks).
  Lifecycle.command!
end
