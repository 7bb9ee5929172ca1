# frozen_string_literal: true

require "test_helper"
require_relative "../../torture/support/beat_watch"

# Scenario 17's measure of a starved fleet (Torture::BeatWatch), on a real
# Redis: how long no live server had beaten, by Redis' clock, as sampled.
# One server beating is enough for the fleet to count as running.
class TortureBeatWatchTest < Minitest::Test
  def setup
    super
    @redis = Deckhand::RedisHarness.client
    @watch = Torture::BeatWatch.new(@redis)
  end

  def test_the_fleet_is_silent_only_while_no_server_beats
    now = redis_now
    beat("vm:1:a", now - 3.0)
    beat("vm:2:b", now - 4.0)
    @watch.sample(["vm:1:a", "vm:2:b"])
    assert_in_delta 3.0, @watch.silence(now - 10, now + 1), 0.5, "silent since the newest beat of the two"
    assert_in_delta 1.0, @watch.silence(now - 1.0, now + 1), 0.5, "counted from the start of the window asked about"
    assert_in_delta 0.0, @watch.silence(now + 5, now + 6), 0.01, "no sample saw that window"

    beat("vm:2:b", redis_now)
    @watch.sample(["vm:1:a", "vm:2:b"])
    assert_in_delta 0.0, @watch.silence(redis_now - 0.2, redis_now + 1), 0.3, "one server beating: the fleet runs"
  end

  def test_servers_not_beating_yet_say_nothing
    @watch.sample(["vm:3:c"])
    @watch.sample([])
    assert_equal 0.0, @watch.silence(0, redis_now + 1)
  end

  private

  def beat(identity, at) = @redis.call("HSET", identity, "beat", at.to_s)

  def redis_now = @redis.call("TIME").then { |s, us| Integer(s) + (Integer(us) / 1_000_000.0) }
end
