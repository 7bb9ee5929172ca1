# frozen_string_literal: true

require_relative "../support/testing/testing_helper"

# Deckhand::Testing registers itself as what stands in for Redis, so runtime
# code asks RedisStandIn instead of probing for the testing mode.
class RedisStandInTest < Minitest::Test
  include Deckhand::TestHelpers
  include Deckhand::TestingHelpers

  def test_fake_and_inline_mode_stand_in_for_redis_and_disable_does_not
    refute Deckhand::RedisStandIn.active?, "disabled: pushes go to Redis"
    Deckhand::Testing.fake! { assert Deckhand::RedisStandIn.active? }
    Deckhand::Testing.inline! { assert Deckhand::RedisStandIn.active? }
  end

  def test_the_fleet_timestamp_format_is_not_read_while_redis_is_stood_in_for
    config = new_config
    Deckhand::Testing.fake! { assert_equal :millis, config.timestamps }
    assert config.fleet_versions.due?, "fake mode must not look at the process records"
    config.timestamps
    refute config.fleet_versions.due?, "with Redis back, the format is read from the fleet"
  end
end
