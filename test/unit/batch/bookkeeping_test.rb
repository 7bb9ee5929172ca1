# frozen_string_literal: true

require_relative "../../support/batch/batch_helper"

# The outcome records the server writes, called directly: each is counted once
# per jid, whatever order and however often they arrive.
class BatchBookkeepingTest < Minitest::Test
  include Deckhand::BatchHelpers

  def setup
    super
    @tracker = Deckhand::Batch::Tracker.new(Deckhand.config)
    @batch = Deckhand::Batch.new
    @batch.on(:success, BatchApp::Callbacks)
    @batch.on(:complete, BatchApp::Callbacks)
    @batch.on(:death, BatchApp::Callbacks)
    @jids = @batch.jobs { 3.times { |i| BatchApp::Work.perform_async("w#{i}") } }
    redis.call("DEL", "queue:default")
  end

  def test_a_job_that_runs_twice_is_counted_once
    assert @tracker.success(@batch.bid, @jids[0])
    refute @tracker.success(@batch.bid, @jids[0])
    assert_equal 2, @batch.status.pending
    assert @tracker.success(@batch.bid, @jids[1])
    assert @tracker.success(@batch.bid, @jids[2])
    refute @tracker.success(@batch.bid, @jids[2])
    assert_equal %w[complete success], callback_events
  end

  def test_a_failure_is_counted_once_however_often_the_job_retries
    error = ArgumentError.new("boom")
    job = {"jid" => @jids[0], "class" => "BatchApp::Work"}
    assert @tracker.failure(@batch.bid, job, error)
    refute @tracker.failure(@batch.bid, job.merge("retry_count" => 1), ArgumentError.new("boom again"))
    assert_equal 1, @batch.status.failures
    assert_equal "boom again", @batch.status.failure_info.first["error_message"], "the last error is kept"
    @tracker.success(@batch.bid, @jids[1])
    @tracker.success(@batch.bid, @jids[2])
    assert_equal %w[complete], callback_events
    @tracker.success(@batch.bid, @jids[0])
    assert_equal %w[complete success], callback_events
    assert_equal 0, @batch.status.failures
  end

  def test_a_failure_recorded_after_the_job_succeeded_is_ignored
    @tracker.success(@batch.bid, @jids[0])
    refute @tracker.failure(@batch.bid, {"jid" => @jids[0]}, RuntimeError.new("late"))
    refute @tracker.death({"bid" => @batch.bid, "jid" => @jids[0]}, RuntimeError.new("late"))
    assert_equal 0, @batch.status.failures
    refute @batch.status.death?
  end

  def test_death_fires_once_per_batch_and_counts_as_a_failure
    @tracker.death({"bid" => @batch.bid, "jid" => @jids[0], "class" => "BatchApp::Work"}, RuntimeError.new("dead"))
    @tracker.death({"bid" => @batch.bid, "jid" => @jids[1], "class" => "BatchApp::Work"}, RuntimeError.new("dead"))
    refute @tracker.death({"bid" => @batch.bid, "jid" => "f" * 24}, RuntimeError.new("not in this batch"))
    assert_equal %w[death], callback_events
    @tracker.success(@batch.bid, @jids[2])
    assert_equal %w[death complete], callback_events
    status = @batch.status
    assert_equal [2, 2, 2], [status.pending, status.failures, status.dead_jids.size]
  end

  def test_jobs_without_a_batch_and_unknown_batches_are_left_alone
    refute @tracker.death({"jid" => @jids[0]}, RuntimeError.new("no bid"))
    before = redis.call("KEYS", "*").sort
    refute @tracker.success("gone-batch", @jids[0])
    refute @tracker.failure("gone-batch", {"jid" => @jids[0]}, RuntimeError.new("x"))
    refute @tracker.death({"bid" => "gone-batch", "jid" => @jids[0]}, RuntimeError.new("x"))
    assert_equal before, redis.call("KEYS", "*").sort
  end

  # Two threads racing over the last jobs of many batches: each batch's
  # callbacks are pushed once.
  def test_racing_successes_fire_each_callback_once
    batches = Array.new(50) do
      batch = Deckhand::Batch.new
      batch.on(:success, BatchApp::Callbacks)
      [batch.bid, batch.jobs { 2.times { BatchApp::Work.perform_async("r") } }]
    end
    redis.call("DEL", "queue:default")
    threads = [0, 1].map do |side|
      Thread.new do
        tracker = Deckhand::Batch::Tracker.new(Deckhand.config)
        batches.each do |bid, jids|
          tracker.success(bid, jids[side])
          tracker.success(bid, jids[1 - side])
        end
      end
    end
    threads.each(&:join)
    pushed = jobs_in("default").map { |job| job["args"].first }
    assert_equal batches.map(&:first).sort, pushed.sort
  end

  private

  # Events of the callback jobs pushed so far, oldest first.
  def callback_events = jobs_in("default").reverse.map { |job| job["args"][1] }
end
