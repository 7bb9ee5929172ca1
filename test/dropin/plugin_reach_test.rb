# frozen_string_literal: true

require_relative "dropin_helper"

# What Sidekiq plugins read and call in drop-in mode, checked in a child
# process where the sidekiq gem is absent (inside/test_plugin_reach.rb holds
# the assertions).
class DropInPluginReachTest < Minitest::Test
  include Deckhand::DropInHelpers

  def test_constants_helpers_and_redis_calls_plugins_reach_for
    assert_dropin_tests_pass(File.expand_path("inside/test_plugin_reach.rb", __dir__))
  end
end
