# frozen_string_literal: true

require "test_helper"
require "tmpdir"

module Deckhand
  # Boots test/rails/app once, when the first Rails test runs (the test Redis
  # is up by then, and config/deckhand.yml reads its REDIS_URL), on a SQLite
  # file in a temporary directory removed after the run.
  module RailsTestApp
    DIR = File.expand_path("app", __dir__)

    class << self
      # The configuration the Railtie built at boot (tests replace Deckhand.config).
      attr_reader :boot_config

      def boot!
        return if @booted
        tmp = Dir.mktmpdir("deckhand-rails")
        Minitest.after_run { FileUtils.rm_rf(tmp) }
        ENV["RAILS_TEST_DATABASE"] = File.join(tmp, "test.sqlite3")
        # An earlier test may have left a booted server's frozen configuration.
        Deckhand.config = Deckhand::Config.new(redis: {url: RedisHarness.url})
        require File.join(DIR, "config/environment")
        @booted = true
        @boot_config = Deckhand.config
        ActiveRecord::Schema.verbose = false
        ActiveRecord::Schema.define { create_table(:users, force: true) { |t| t.string :name } }
        ActiveRecord::Base.connection_handler.clear_all_connections!(:all)
      end
    end

    def setup
      RailsTestApp.boot!
      super
      recorded
      User.delete_all
    end

    # Closes the test app's SQLite connections (the next test opens them
    # again): a test that forks later in this run must not inherit an open
    # writable database, which sqlite3 closes in the child with a warning.
    def teardown
      super
    ensure
      ActiveRecord::Base.connection_handler.clear_all_connections!(:all) if defined?(ActiveRecord::Base)
    end

    # A fresh test configuration with what the Railtie adds to a server's.
    def rails_config(**settings)
      config = new_config(**settings)
      Deckhand::Railtie.install(config, Rails.application)
      config
    end

    # Everything RailsJobs.record saw since the last call.
    def recorded
      entries = []
      entries << RailsJobs::LOG.pop until RailsJobs::LOG.empty?
      entries
    end
  end
end
