# frozen_string_literal: true

# A minimal Rails application for the Rails integration tests: Active Job on
# Deckhand, Active Record on SQLite (for push-after-commit), jobs in app/jobs.
# The tests load it in their own process; `deckhand -r test/rails/app` boots it
# the way a production server would. RAILS_TEST_DROPIN=1 boots it in drop-in
# mode (deckhand/sidekiq loaded after Rails, as Bundler.require does, and
# `queue_adapter = :sidekiq`); RAILS_TEST_EAGER=1 eager-loads it.

require "rails"
require "active_job/railtie"
require "active_record/railtie"
# What Bundler.require does in a JRuby app whose Gemfile has it: Active
# Record's "sqlite3" adapter from JDBC (the sqlite3 gem is a C extension).
require "activerecord-jdbcsqlite3-adapter" if RUBY_ENGINE == "jruby"
require((ENV["RAILS_TEST_DROPIN"] == "1") ? "deckhand/sidekiq" : "deckhand/rails")

module DeckhandRailsTestApp
  class Application < Rails::Application
    config.load_defaults 7.2
    config.root = File.expand_path("..", __dir__)
    config.eager_load = ENV["RAILS_TEST_EAGER"] == "1"
    config.enable_reloading = ENV["RAILS_TEST_RELOADING"] == "1" # on for the reloading test only
    config.logger = ActiveSupport::Logger.new(ENV.fetch("RAILS_TEST_LOG", File::NULL))
    config.log_level = :info
    config.active_job.queue_adapter = (ENV["RAILS_TEST_DROPIN"] == "1") ? :sidekiq : :deckhand
    config.deckhand.push_after_commit = true
    config.secret_key_base = "deckhand-test-only"
  end
end
