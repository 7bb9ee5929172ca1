# frozen_string_literal: true

require "test_helper"
require "active_support"
require "active_support/testing/time_helpers"

# An application's test suite freezes time (Rails' travel_to, freeze_time:
# they stub Time.now, not the system clock) and checks when a job was
# scheduled. A job scheduled `perform_in(60)` under a frozen clock is due 60
# seconds after the time the test sees, wherever that time lies; a time the
# test sees as past goes to the queue at once, one it sees as to come to the
# schedule.
class FrozenTimeTest < Minitest::Test
  include ActiveSupport::Testing::TimeHelpers

  PAST = Time.utc(2020, 2, 3, 4, 5, 6)
  FUTURE = Time.utc(2044, 5, 6, 7, 8, 9)

  class ReportJob
    include Deckhand::Job

    def perform(*) = nil
  end

  def teardown
    travel_back
    super
  end

  def scheduled = redis.call("ZRANGE", "schedule", 0, -1, "WITHSCORES").map { |raw, score| [JSON.parse(raw), Float(score)] }

  def assert_scheduled_at(expected, message = nil)
    entries = scheduled
    assert_equal 1, entries.size, "one job in the schedule (#{message})"
    job, score = entries.first
    assert_in_delta expected.to_f, score, 1.0, "its score (#{message})"
    assert_in_delta expected.to_f, job["at"].to_f, 1.0, "its \"at\" (#{message})" if job.key?("at")
    assert_equal 0, redis.call("LLEN", "queue:default"), "nothing in the queue (#{message})"
  end

  def test_perform_in_counts_from_a_frozen_past
    travel_to(PAST) { ReportJob.perform_in(60, 1) }
    assert_scheduled_at(PAST + 60)
  end

  def test_perform_in_counts_from_a_frozen_future
    travel_to(FUTURE) { ReportJob.perform_in(60, 1) }
    assert_scheduled_at(FUTURE + 60)
  end

  def test_perform_in_takes_a_duration_under_freeze_time
    travel_to(PAST)
    freeze_time { ReportJob.perform_in(ActiveSupport::Duration.build(3600), 1) }
    assert_scheduled_at(PAST + 3600)
  end

  def test_set_then_perform_in_counts_from_the_frozen_time
    travel_to(PAST) { ReportJob.set(queue: "low").perform_in(90, 1) }
    job, score = scheduled.first
    assert_equal "low", job["queue"]
    assert_in_delta (PAST + 90).to_f, score, 1.0
  end

  # perform_at with a time the test sees as to come: scheduled, even when the
  # system clock has passed it.
  def test_perform_at_a_time_to_come_in_a_frozen_past_is_scheduled
    travel_to(PAST) { ReportJob.perform_at(Time.now + 60, 1) }
    assert_scheduled_at(PAST + 60)
  end

  # perform_at with a time the test sees as past: queued now, even when the
  # system clock has not reached it.
  def test_perform_at_a_past_time_in_a_frozen_future_is_queued_now
    travel_to(FUTURE) { ReportJob.perform_at(Time.now - 60, 1) }
    assert_equal [], scheduled
    assert_equal 1, redis.call("LLEN", "queue:default")
  end

  def test_client_push_with_at_follows_the_frozen_time
    travel_to(PAST) do
      Deckhand::Client.push("class" => "FrozenTimeTest::ReportJob", "args" => [1], "at" => Time.now.to_f + 120)
    end
    assert_scheduled_at(PAST + 120)
  end

  def test_client_push_bulk_with_at_follows_the_frozen_time
    travel_to(PAST) do
      Deckhand::Client.push_bulk("class" => "FrozenTimeTest::ReportJob", "args" => [[1], [2]], "at" => Time.now.to_f + 30)
    end
    assert_equal 2, scheduled.size
    scheduled.each { |_, score| assert_in_delta (PAST + 30).to_f, score, 1.0 }
  end
end
