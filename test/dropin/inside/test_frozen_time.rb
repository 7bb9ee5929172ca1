# frozen_string_literal: true

# Runs in a drop-in child (test/dropin/frozen_time_test.rb starts it): an
# application's tests freeze time with Rails' travel_to and freeze_time,
# which stub Time.now (not the system clock), and check when a job is due.
# As with the sidekiq gem, perform_in, perform_at, set(wait:) and
# set(wait_until:) count from the time the test sees: a time it sees as to
# come is scheduled, one it sees as past goes to the queue now, in Redis and
# in Sidekiq::Testing's fake mode alike.
require "minitest/autorun"
require "active_support"
require "active_support/testing/time_helpers"
require "active_job"
require "deckhand/sidekiq" # as Bundler.require does, after Rails
require "sidekiq"
require "sidekiq/api"
require "sidekiq/testing"

class FrozenReportJob
  include Sidekiq::Job

  def perform(*) = nil
end

class FrozenMailJob < ActiveJob::Base
  self.queue_adapter = :sidekiq

  def perform(*) = nil
end

class FrozenTimeInsideTest < Minitest::Test
  include ActiveSupport::Testing::TimeHelpers

  PAST = Time.utc(2020, 2, 3, 4, 5, 6)
  FUTURE = Time.utc(2044, 5, 6, 7, 8, 9)

  def setup
    Sidekiq::Testing.disable!
    Sidekiq.redis { |conn| conn.call("FLUSHDB") }
    ActiveJob::Base.logger = Logger.new(File::NULL)
  end

  def teardown
    travel_back
    Sidekiq::Testing.disable!
    FrozenReportJob.jobs.clear
  end

  def scheduled = Sidekiq::ScheduledSet.new.to_a

  def assert_due_at(expected, message)
    entries = scheduled
    assert_equal 1, entries.size, "one job in the schedule (#{message})"
    assert_in_delta expected.to_f, entries.first.score, 1.0, "when it is due (#{message})"
    assert_equal 0, Sidekiq::Queue.new.size, "nothing in the queue (#{message})"
  end

  def test_perform_in_counts_from_the_frozen_time
    [PAST, FUTURE].each do |time|
      Sidekiq.redis { |conn| conn.call("DEL", "schedule") }
      travel_to(time) { FrozenReportJob.perform_in(60, 1) }
      assert_due_at(time + 60, "travel_to #{time}")
    end
  end

  def test_perform_in_under_freeze_time
    travel_to(PAST)
    freeze_time { FrozenReportJob.perform_in(3600, 1) }
    assert_due_at(PAST + 3600, "freeze_time")
  end

  def test_perform_at_a_time_the_test_sees_to_come_is_scheduled
    travel_to(PAST) { FrozenReportJob.perform_at(Time.now + 60, 1) }
    assert_due_at(PAST + 60, "perform_at")
  end

  def test_perform_at_a_time_the_test_sees_past_is_queued_now
    travel_to(FUTURE) { FrozenReportJob.perform_at(Time.now - 60, 1) }
    assert_equal 0, scheduled.size
    assert_equal 1, Sidekiq::Queue.new.size
  end

  def test_set_wait_counts_from_the_frozen_time
    travel_to(PAST) { FrozenReportJob.set(wait: 120).perform_async(1) }
    assert_due_at(PAST + 120, "set(wait:)")
  end

  def test_set_wait_until_a_time_the_test_sees_to_come_is_scheduled
    travel_to(PAST) { FrozenReportJob.set(wait_until: Time.now + 300).perform_async(1) }
    assert_due_at(PAST + 300, "set(wait_until:)")
  end

  def test_client_push_with_at_follows_the_frozen_time
    travel_to(PAST) { Sidekiq::Client.push("class" => FrozenReportJob, "args" => [1], "at" => Time.now.to_f + 30) }
    assert_due_at(PAST + 30, "Sidekiq::Client.push")
  end

  # Fake mode keeps the job's "at" where rspec-sidekiq's `in` and `at`
  # matchers read it.
  def test_fake_mode_records_the_due_time_from_the_frozen_time
    Sidekiq::Testing.fake!
    travel_to(PAST) do
      FrozenReportJob.perform_in(3600, 1)
      FrozenReportJob.set(wait: 60).perform_async(2)
    end
    ats = FrozenReportJob.jobs.map { |job| job["at"] }
    assert_equal 2, ats.compact.size, "both jobs are scheduled: #{FrozenReportJob.jobs.inspect}"
    assert_in_delta (PAST + 3600).to_f, ats[0], 1.0
    assert_in_delta (PAST + 60).to_f, ats[1], 1.0
  end

  # Active Job computes the time itself (from Time.now) and hands the
  # adapter a timestamp: the job is scheduled for it, not queued because
  # the system clock has passed it.
  def test_active_job_set_wait_under_a_frozen_past_is_scheduled
    travel_to(PAST) { FrozenMailJob.set(wait: 600).perform_later(1) }
    assert_due_at(PAST + 600, "Active Job set(wait:)")
  end

  # Sidekiq reads an interval with to_f, a String's leading number
  # included; plain Deckhand refuses a String, drop-in mode reads it as
  # Sidekiq does.
  def test_a_string_interval_is_read_as_sidekiq_reads_it
    travel_to(PAST) { FrozenReportJob.perform_in("300", 1) }
    assert_due_at(PAST + 300, "perform_in(\"300\")")
    Sidekiq.redis { |conn| conn.call("DEL", "schedule") }
    travel_to(PAST) { FrozenReportJob.set(queue: "low").perform_in("5 minutes", 1) }
    assert_due_at(PAST + 5, "perform_in(\"5 minutes\"): Sidekiq's 5 s")
  end
end
