# frozen_string_literal: true

require "test_helper"
require "deckhand/api"

# Throttles read and changed at run time through the data API, and picked up
# by a running server at its next heartbeat.
class ThrottleApiTest < Minitest::Test
  def api = Deckhand::API.new(Deckhand.config)

  def test_run_time_limits_override_the_configuration_and_reset_back
    Deckhand.config.throttle = {"exports" => {concurrency: 3}, "api" => {rate: 20}}
    assert_equal({"concurrency" => 3}, api.throttle("exports").limit)
    api.throttle("exports").set(concurrency: 5)
    api.throttle("api").remove
    assert_equal({"concurrency" => 5}, api.throttle("exports").limit)
    assert api.throttle("exports").changed?
    assert_nil api.throttle("api").limit
    assert_equal ["exports"], api.throttles.map(&:queue)
    api.throttle("api").reset
    assert_equal({"rate" => 20, "per" => 1}, api.throttle("api").limit)
  end

  def test_bad_limits_are_refused_with_the_fix
    error = assert_raises(Deckhand::ConfigError) { api.throttle("exports").set(concurency: 3) }
    assert_match(/unknown key :concurency; known: rate, per, concurrency/, error.message)
    assert_equal({}, redis.call("HGETALL", "deckhand:throttles"))
  end

  def test_a_running_server_takes_a_run_time_throttle_from_its_heartbeat
    config = new_config(concurrency: 5, heartbeat_interval: 0.05)
    api.throttle("default").set(concurrency: 1)
    10.times { SleepJob.perform_async(0.02) }
    with_server(config) do
      wait_for(message: "every job run") { Deckhand::TestJobs.runs.size == 20 }
    end
    assert_equal [:start, :finish] * 10, Deckhand::TestJobs.runs.map(&:last), "two jobs of the queue ran at once"
    assert_equal 0, Deckhand::Store::Features::Throttles.usage(Deckhand.config.store, "default")[:held]
  end
end
