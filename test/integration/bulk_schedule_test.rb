# frozen_string_literal: true

require "test_helper"
require "minitest/mock"

# perform_bulk and push_bulk with times: one for all, one per job, or spread
# at random over an interval; a jid only where one job is pushed.
class BulkScheduleTest < Minitest::Test
  def scheduled = redis.call("ZRANGE", "schedule", 0, -1, "WITHSCORES").map { |raw, score| [JSON.parse(raw), score.to_f] }

  def test_perform_bulk_takes_a_time_per_job
    soon = Time.now.to_f + 600
    jids = RecordJob.perform_bulk([[1], [2]], at: [soon, soon + 60])
    rows = scheduled.sort_by(&:last)
    assert_equal jids, rows.map { |job, _| job["jid"] }
    assert_in_delta soon, rows[0][1], 0.01
    assert_in_delta soon + 60, rows[1][1], 0.01
  end

  def test_a_nil_time_pushes_that_job_now
    soon = Time.now.to_f + 600
    now_jid, later_jid = RecordJob.perform_bulk([[1], [2]], at: [nil, soon])
    assert_equal [now_jid], jobs_in("default").map { |job| job["jid"] }
    assert_equal [later_jid], scheduled.map { |job, _| job["jid"] }
  end

  def test_spread_interval_spreads_the_jobs_from_now_over_at_least_five_seconds
    before = Time.now.to_f
    jids = RecordJob.perform_bulk(Array.new(40) { |i| [i] }, spread_interval: 2)
    after = Time.now.to_f
    times = scheduled.map(&:last)
    assert_equal 40, jids.compact.size
    assert_equal 40, times.size
    assert times.all? { |t| t.between?(before, after + 5) }, "within 5 s of the push (2 s is widened to the 5 s floor)"
    assert_operator times.max - times.min, :>, 2, "spread wider than the 2 s asked for"
    assert_equal 0, redis.call("LLEN", "queue:default")
  end

  def test_spread_interval_counts_from_the_applications_clock
    later = Time.now + 3600 # a test travelling in time
    Time.stub(:now, later) { RecordJob.perform_bulk(Array.new(10) { |i| [i] }, spread_interval: 10) }
    assert scheduled.map(&:last).all? { |t| t.between?(later.to_f, later.to_f + 10) }, "spread over the 10 s after the application's now"
  end

  def test_bad_times_are_refused_before_anything_is_pushed
    error = assert_raises(Deckhand::InvalidJob) { RecordJob.perform_bulk([[1]], at: "soon") }
    assert_match(/"at" must be a Numeric or an Array of Numeric timestamps/, error.message)
    assert_raises(Deckhand::InvalidJob) { RecordJob.perform_bulk([[1]], at: []) }
    error = assert_raises(Deckhand::InvalidJob) { RecordJob.perform_bulk([[1]], at: Time.now.to_f + 9, spread_interval: 10) }
    assert_match(/Only one of 'at' or 'spread_interval'/, error.message)
    assert_raises(Deckhand::InvalidJob) { RecordJob.perform_bulk([[1]], spread_interval: -1) }
    assert_equal 0, redis.call("ZCARD", "schedule") + redis.call("LLEN", "queue:default")
  end

  def test_a_jid_is_taken_for_one_job_and_refused_for_more
    assert_equal ["a" * 24], Deckhand::Client.new.push_bulk("class" => "RecordJob", "args" => [[1]], "jid" => "a" * 24)
    assert_equal "a" * 24, JSON.parse(redis.call("LINDEX", "queue:default", 0))["jid"]
    error = assert_raises(Deckhand::InvalidJob) { Deckhand::Client.new.push_bulk("class" => "RecordJob", "args" => [[1], [2]], "jid" => "b" * 24) }
    assert_match(/Explicitly passing 'jid' when pushing more than one job is not supported/, error.message)
  end
end
