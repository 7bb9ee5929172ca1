# frozen_string_literal: true

require_relative "../../support/testing/testing_helper"
require "active_support"
require "active_support/testing/time_helpers"

# Application test suites freeze time (Rails' travel_to, freeze_time), which
# stubs Time.now. A delay is counted from the application's now, as Sidekiq
# counts it: the job is due 60 s after the frozen time, in testing mode and
# in Redis alike.
class TestingFrozenTimeTest < Minitest::Test
  include Deckhand::TestingHelpers
  include ActiveSupport::Testing::TimeHelpers

  FROZEN = Time.utc(2031, 5, 17, 9, 30, 0)

  def teardown
    travel_back
    super
  end

  def test_perform_in_counts_from_frozen_time_in_fake_mode
    Deckhand::Testing.fake!
    travel_to(FROZEN) { RecordJob.perform_in(60, 1) }
    job = Deckhand::Testing.jobs.last
    assert_in_delta FROZEN.to_f + 60, job["at"], 0.001
  end

  def test_perform_in_and_set_wait_count_from_frozen_time_in_redis
    Deckhand::Testing.disable!
    travel_to(FROZEN) do
      RecordJob.perform_in(60, 1)
      RecordJob.set(queue: "later").perform_in(120, 2)
    end
    scores = redis.call("ZRANGE", "schedule", 0, -1, "WITHSCORES").map { |raw, score| [JSON.parse(raw)["args"], score.to_f] }
    assert_equal [[[1], FROZEN.to_f + 60], [[2], FROZEN.to_f + 120]], scores
  end

  # A frozen time in the past makes the delay's time past too: the job is
  # scheduled all the same (Sidekiq's rule: a time to come by Time.now).
  def test_a_delay_from_a_frozen_past_is_still_a_time_to_come_by_time_now
    Deckhand::Testing.disable!
    travel_to(Time.utc(2001, 1, 1)) { RecordJob.perform_in(30, 3) }
    assert_equal 1, redis.call("ZCARD", "schedule")
    assert_equal 0, redis.call("LLEN", "queue:default")
  end
end
