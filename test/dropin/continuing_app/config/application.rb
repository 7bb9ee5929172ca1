# frozen_string_literal: true

# A Rails application in drop-in mode as one is written for the sidekiq gem:
# `require "sidekiq/rails"` and `queue_adapter = :sidekiq`, no sidekiq gem
# in the bundle. The test (test/dropin/continuing_app_test.rb) loads drop-in
# mode before Rails, as a preload or a Gemfile listing deckhand first does.
require "rails"
require "active_job/railtie"
require "sidekiq/rails"

module ContinuingApp
  class Application < Rails::Application
    config.load_defaults Rails::VERSION::STRING.to_f
    config.root = File.expand_path("..", __dir__)
    config.eager_load = false
    config.logger = ActiveSupport::Logger.new(File::NULL)
    config.active_job.queue_adapter = :sidekiq
    config.secret_key_base = "deckhand-test-only"
  end
end
