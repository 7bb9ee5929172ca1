# frozen_string_literal: true

require "deckhand/cli"
require_relative "cli/options"

module Sidekiq
  # `Sidekiq::CLI` in drop-in mode: the sidekiq command's object, parsing
  # Sidekiq's flags and config/sidekiq.yml into a Sidekiq::Config (so into
  # Deckhand's configuration), booting the application and running a
  # Deckhand server. Requiring it marks the process as a server
  # (Sidekiq.server?), as in Sidekiq.
  #
  #   cli = Sidekiq::CLI.instance
  #   cli.parse(%w[-r ./config/environment.rb -c 10 -q critical,2 -q default])
  #   cli.run   # boots the application, serves until TERM or INT
  class CLI < Deckhand::CLI
    def self.instance = @instance ||= new

    attr_accessor :launcher, :environment
    attr_writer :config

    def initialize(argv = [], out: $stdout, err: $stderr)
      super
    end

    def config = @config ||= Sidekiq.default_configuration

    def logger = config.logger

    # Reads the flags and the config file into the configuration; exits 1
    # when -r names nothing to load, raises ArgumentError on a bad value.
    def parse(args = ARGV.dup)
      reader = Deckhand::DropIn::CliOptions.new(logger, config[:require], exit: method(:exit))
      options = reader.parse(args, ENV["APP_ENV"] || ENV["RAILS_ENV"] || ENV["RACK_ENV"] || "development")
      options[:queues] ||= ["default"]
      options[:concurrency] ||= Integer(ENV["RAILS_MAX_THREADS"]) if ENV["RAILS_MAX_THREADS"]
      %i[concurrency timeout].each do |name|
        value = options.fetch(name) { config[name] }
        raise ArgumentError, "#{name}: #{value} is not a valid value" if value.to_i <= 0
      end
      apply(options)
      logger.level = ::Logger::DEBUG if config[:verbose]
      check_require(reader.parser)
    end

    # Boots the application, warns when Redis may evict jobs (from
    # redis_info, as Sidekiq does; the server's eviction watch does not say
    # it twice), then serves.
    def run(boot_app: true, warmup: true)
      boot_application if boot_app
      warn_eviction
      launch
    end

    # Runs a Deckhand server on the configuration until TERM or INT.
    def launch(_pipe = nil)
      deckhand = config.config
      Deckhand.config = deckhand unless Deckhand.config.equal?(deckhand)
      deckhand.freeze!
      deckhand.store.verify!
      serve(deckhand)
    end

    # What the sidekiq command does on a signal: INT and TERM stop (raise
    # Interrupt), TSTP quiets, TTIN logs every thread's backtrace.
    def handle_signal(signal)
      logger.debug("Got #{signal} signal")
      case signal
      when "INT", "TERM" then raise Interrupt
      when "TSTP"
        logger.info("Received TSTP, no longer accepting new work")
        launcher&.quiet
      when "TTIN" then log_threads
      else logger.info("No signal handler registered, ignoring")
      end
    end

    private

    # In cluster mode the server's watch reads every primary and warns.
    def warn_eviction
      store = config.config.store
      return if store.cluster?
      node = Deckhand::Store::Connection::RedisMemory.from_fields(store.location, config.redis_info)
      concern = Deckhand::Store::Connection::MemoryConcerns.policy(node) or return
      logger.warn(concern.text)
      @eviction_told = [concern]
    end

    def apply(options)
      config.merge!(options.except(:capsules))
      config.default_capsule.queues = options[:queues]
      config.default_capsule.concurrency = options[:concurrency] || config[:concurrency]
      options[:capsules]&.each do |name, settings|
        config.capsule(name.to_s) do |cap|
          cap.queues = settings[:queues]
          cap.concurrency = settings[:concurrency]
        end
      end
      @environment = options[:environment]
      @tag_given = options.key?(:tag)
    end

    def check_require(parser)
      path = config[:require]
      return if File.exist?(path) && (!File.directory?(path) || File.exist?(File.join(path, "config/application.rb")))
      logger.info("Point Sidekiq at a Rails application or a Ruby file that loads your job classes with -r [DIR|FILE]: " \
        "#{path} is #{File.exist?(path) ? "a directory without config/application.rb" : "not there"}")
      logger.info(parser.to_s)
      exit(1)
    end

    def boot_application
      ENV["RACK_ENV"] = ENV["RAILS_ENV"] = environment
      path = config[:require]
      return require(path) unless File.directory?(path)
      require "rails"
      require "sidekiq/rails"
      require File.expand_path("config/environment.rb", path)
      # Deckhand's default tag is the working directory's name; a Rails
      # application's is its root's, unless -g or the file named one.
      config[:tag] = default_tag unless @tag_given
    end

    # The application's directory name; in a Capistrano release
    # (app/releases/20240101), the application's.
    def default_tag
      root = ::Rails.root.to_s
      name = File.basename(root)
      parent = File.dirname(root)
      (name.to_i != 0 && File.basename(parent) == "releases") ? File.basename(File.dirname(parent)) : name
    end

    def log_threads
      Thread.list.each do |thread|
        logger.warn("Thread TID-#{(thread.object_id ^ ::Process.pid).to_s(36)} #{thread.name}")
        logger.warn(thread.backtrace ? thread.backtrace.join("\n") : "<no backtrace available>")
      end
    end
  end
end
