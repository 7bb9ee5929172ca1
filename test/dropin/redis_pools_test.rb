# frozen_string_literal: true

require_relative "dropin_helper"

# Sidekiq 7's Redis pools in drop-in mode, exercised in a child process where
# the sidekiq gem is absent (inside/test_redis_pools.rb holds the assertions).
class DropInRedisPoolsTest < Minitest::Test
  include Deckhand::DropInHelpers

  def test_sidekiq_redis_pools_are_deckhand_stores_behind_sidekiqs_pool_methods
    assert_dropin_tests_pass(File.expand_path("inside/test_redis_pools.rb", __dir__))
  end
end
