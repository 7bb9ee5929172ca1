# frozen_string_literal: true

require_relative "dropin_helper"

# `require "sidekiq/rails"` in a Rails application in drop-in mode, in a
# child without the sidekiq gem (inside/test_rails_app.rb holds the assertions).
class DropInRailsAppTest < Minitest::Test
  include Deckhand::DropInHelpers

  def test_sidekiq_rails_gives_the_reloader_the_generator_and_the_active_job_guard
    assert_dropin_tests_pass(File.expand_path("inside/test_rails_app.rb", __dir__), preload: false)
  end
end
