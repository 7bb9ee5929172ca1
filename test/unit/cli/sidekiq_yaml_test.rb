# frozen_string_literal: true

require "test_helper"
require "tmpdir"
require "deckhand/cli/config_file" # not deckhand/cli: loading the command marks the process a server for the Railtie

# `deckhand -C config/sidekiq.yml` reads Sidekiq's file as is.
class SidekiqYamlTest < Minitest::Test
  def test_symbol_keys_weighted_queues_and_environment_sections
    Dir.mktmpdir do |dir|
      path = File.join(dir, "sidekiq.yml")
      File.write(path, <<~YAML)
        ---
        :concurrency: 3
        :dead_timeout_in_seconds: 60
        :queues:
          - [critical, 2]
          - default
        :capsules:
          :single:
            :concurrency: 1
            :queues: [single]
        production:
          :concurrency: 10
      YAML
      settings = Deckhand::CLI::ConfigFile.load(path, "development")
      assert_equal 3, settings[:concurrency]
      assert_equal 60, settings[:dead_timeout]
      assert_equal ["critical,2", "default"], settings[:queues]
      assert_equal [{"concurrency" => 1, "queues" => ["single"], "name" => "single"}], settings[:capsules]
      assert_equal 10, Deckhand::CLI::ConfigFile.load(path, "production")[:concurrency]
    end
  end

  def test_a_sidekiq_setting_deckhand_lacks_is_named
    Dir.mktmpdir do |dir|
      path = File.join(dir, "sidekiq.yml")
      File.write(path, ":concurrency: 3\n:pidfile: tmp/sidekiq.pid\n")
      error = assert_raises(Deckhand::ConfigError) { Deckhand::CLI::ConfigFile.load(path, "development") }
      assert_includes error.message, "unknown setting \"pidfile\""
    end
  end

  def test_server_events_run_in_order_and_refuse_unknown_names
    events = Deckhand::Config::Events.new
    seen = []
    events.on(:quiet) { seen << 1 }
    events.on(:quiet) { raise "boom" }
    events.on(:quiet) { seen << 3 }
    log = StringIO.new
    events.fire(:quiet, Logger.new(log))
    assert_equal [1, 3], seen
    assert_includes log.string, "quiet handler raised RuntimeError: boom"
    events.on(:startup) { raise "cannot start" }
    assert_raises(RuntimeError) { events.fire(:startup, Logger.new(log)) }
    assert_raises(Deckhand::ConfigError) { events.on(:beta) {} }
    events.freeze
    assert_raises(Deckhand::ConfigError) { events.on(:quiet) {} }
  end
end
