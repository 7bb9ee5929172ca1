# frozen_string_literal: true

# Runs in a drop-in child (test/dropin/sidekiq_cli_test.rb starts it, in
# test/dropin/cli_app): the Sidekiq::CLI object, its flags and config file.
require "minitest/autorun"
require "logger"
require "stringio"
require "sidekiq/cli"

class SidekiqCliInsideTest < Minitest::Test
  APP = File.expand_path("jobs.rb", Dir.pwd)

  def setup
    @log = StringIO.new
    @config = Sidekiq::Config.new
    @config.logger = Logger.new(@log, level: Logger::INFO)
    @cli = Sidekiq::CLI.new.tap { |cli| cli.config = @config }
  end

  def test_flags_set_the_configuration
    @cli.parse(["-c", "7", "-q", "critical,3", "-q", "low", "-t", "9", "-g", "billing", "-e", "staging", "-v", "-r", APP, "-C", "config/sidekiq.yml"])
    assert_equal [7, 9, "billing", "staging", APP], [@config.concurrency, @config[:timeout], @config[:tag], @config[:environment], @config[:require]]
    assert_equal %w[critical critical critical low], @config.queues
    assert_equal ["critical,3", "low"], @config.config.queues, "Deckhand's configuration has them"
    assert_equal Logger::DEBUG, @config.logger.level
  end

  def test_the_config_file_beside_the_application_and_its_environment_section
    @cli.parse(["-r", "./jobs.rb"])
    assert_equal "./config/sidekiq.yml", @config[:config_file]
    assert_equal [3, %w[often often seldom], "config", "kept"], [@config.concurrency, @config.queues, @config[:tag], @config[:own_setting]]
    assert_equal [1, %w[single]], [@config.capsule("single").concurrency, @config.capsule("single").queues]
    staging = Sidekiq::Config.new.tap { |config| config.logger = Logger.new(nil) }
    Sidekiq::CLI.new.tap { |cli| cli.config = staging }.parse(["-r", "./jobs.rb", "-e", "staging"])
    assert_equal 4, staging.concurrency
  end

  def test_defaults_and_rails_max_threads
    ENV["RAILS_MAX_THREADS"] = "6"
    @cli.parse(["-r", APP, "-C", "config/sidekiq.yml", "-q", "default"])
    assert_equal [3, %w[default]], [@config.concurrency, @config.queues], "the file's concurrency wins over RAILS_MAX_THREADS"
    other = Sidekiq::Config.new.tap { |config| config.logger = Logger.new(nil) }
    Sidekiq::CLI.new.tap { |cli| cli.config = other }.parse(["-r", APP, "-C", File::NULL])
    assert_equal [6, %w[default]], [other.concurrency, other.queues]
  ensure
    ENV.delete("RAILS_MAX_THREADS")
  end

  def test_bad_values_are_refused
    assert_equal 1, assert_raises(SystemExit) { @cli.parse(["-r", "/no/such/app.rb"]) }.status
    assert_includes @log.string, "/no/such/app.rb is not there"
    assert_equal 1, assert_raises(SystemExit) { @cli.parse(["-r", "config"]) }.status, "a directory without config/application.rb"
    assert_includes assert_raises(ArgumentError) { @cli.parse(["-r", APP, "-C", "missing.yml"]) }.message, "No such file missing.yml"
    assert_raises(ArgumentError) { @cli.parse(["-r", APP, "-c", "0"]) }
    assert_raises(ArgumentError) { @cli.parse(["-r", APP, "-t", "-2"]) }
  end

  def test_signals
    @config.logger.level = Logger::DEBUG
    assert_raises(Interrupt) { @cli.handle_signal("TERM") }
    assert_raises(Interrupt) { @cli.handle_signal("INT") }
    @cli.handle_signal("TTIN")
    assert_match(/Got TTIN signal.*Thread TID-\w+.*test_signals/m, @log.string)
    @cli.handle_signal("HUP")
    assert_includes @log.string, "No signal handler registered, ignoring"
  end

  def test_run_boots_the_file_and_warns_when_redis_may_evict_jobs
    launched = Class.new(Sidekiq::CLI) { def launch(*) = :launched }.new.tap { |cli| cli.config = @config }
    launched.parse(["-r", APP, "-C", File::NULL])
    @config.redis { |conn| conn.call("CONFIG", "SET", "maxmemory-policy", "allkeys-lru") }
    assert_equal :launched, launched.run
    assert defined?(CliRunJob)
    assert_includes @log.string, "has maxmemory-policy allkeys-lru"
    assert_includes @log.string, "`CONFIG SET maxmemory-policy noeviction`"
    # The server's eviction watch, at its boot, does not say it twice.
    deckhand = @config.config
    told = launched.instance_variable_get(:@eviction_told)
    Deckhand::Server::Chores::EvictionWatch.new(config: deckhand, store: deckhand.store, told: told).boot
    assert_equal 1, @log.string.scan("has maxmemory-policy allkeys-lru").size, @log.string
  ensure
    @config.redis { |conn| conn.call("CONFIG", "SET", "maxmemory-policy", "noeviction") }
  end
end
