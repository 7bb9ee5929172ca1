# frozen_string_literal: true

require_relative "../../support/batch/batch_helper"
require "support/cut_reply_proxy"

# A batch's jobs written through a proxy that cuts the connection at the
# fourth of five slices (three of the batch's, two of a child's): after
# Redis ran it, in the middle of its reply, or before it reached Redis.
# Redis is asked whether it ran the slice: the write succeeds whole, or
# raises an error that says exactly which jobs are queued and which are
# not, and pushing those again in the batch's next jobs block queues each
# job once, in its own batch, and lets the batches go.
class BatchCutReplyTest < Minitest::Test
  include Deckhand::BatchHelpers

  def setup
    super
    @pusher = Deckhand::Client.pusher
    Deckhand::Client.pusher = nil # Rails' push-after-commit, when another test loaded it
    @proxy = Deckhand::CutReplyProxy.start(port: Deckhand::RedisHarness.server.port)
    config = new_config(redis: {url: @proxy.url, timeout: 2})
    Deckhand::Batch.install(config)
    Deckhand.config = config
    redis.call("SCRIPT", "LOAD", Deckhand::Store::Scripts::BatchAdd.source) # every call by SHA
  end

  def teardown
    @proxy&.stop
    Deckhand::Client.pusher = @pusher
    super
  end

  # The `nth` call of the script that registers and pushes a slice.
  def nth_slice(nth)
    seen = 0
    sha = Deckhand::Store::Scripts::BatchAdd.sha
    ->(command) { command.first.casecmp?("EVALSHA") && command[1] == sha && (seen += 1) == nth }
  end

  def write(batch)
    child = nil
    batch.jobs do
      BatchApp::Work.perform_bulk(Array.new(3_000) { |i| ["p#{i}"] })
      child = Deckhand::Batch.new
      child.jobs { BatchApp::Work.perform_bulk(Array.new(2_000) { |i| ["c#{i}"] }) }
    end
    child
  end

  def queued = jobs_in("default").reverse

  def held(bid) = redis.call("HGET", Deckhand::Store::Layout::PlainBatches.batch(bid), "hold").to_i

  def assert_each_job_once(parent, child)
    jobs = queued
    assert_equal 5_000, jobs.map { |job| job["jid"] }.uniq.size, "every job once"
    assert_equal (0...3_000).map { |i| "p#{i}" }.sort, jobs.select { |job| job["bid"] == parent.bid }.map { |job| job["args"].first }.sort
    assert_equal (0...2_000).map { |i| "c#{i}" }.sort, jobs.select { |job| job["bid"] == child.bid }.map { |job| job["args"].first }.sort
    assert_equal [3_000, 3_000], [parent.status.total, parent.status.pending]
    assert_equal [2_000, 2_000], [child.status.total, child.status.pending]
    assert_equal [0, 0], [held(parent.bid), held(child.bid)], "both batches let go"
  end

  def test_a_slice_whose_reply_was_cut_after_redis_ran_it_is_no_failure
    @proxy.cut_reply_to(&nth_slice(4))
    parent = Deckhand::Batch.new
    child = write(parent)
    assert_equal 1, @proxy.cuts
    assert_each_job_once(parent, child)
  end

  def test_a_slice_that_never_reached_redis_is_told_and_pushed_again_in_its_batch
    @proxy.cut_request_at(&nth_slice(4))
    parent = Deckhand::Batch.new
    error = assert_raises(Deckhand::ConnectionError) { write(parent) }
    assert_respond_to error, :pushed
    assert_equal queued.map { |job| job["jid"] }, error.pushed, "exactly the jobs Redis holds"
    assert_equal 3_000, error.pushed.size
    assert_equal 2_000, error.unpushed.size
    assert_empty error.in_doubt
    child_bid = error.unpushed.first["bid"]
    refute_equal parent.bid, child_bid
    assert_equal [1, 1], [held(parent.bid), held(child_bid)], "held while jobs are missing"

    parent.jobs { error.unpushed.each { |job| Deckhand::Client.push(job) } }
    assert_each_job_once(parent, Deckhand::Batch.new(child_bid))
  end

  # Through a pusher (push-after-commit outside a transaction writes at
  # once) the script registers the jids and the jobs go apart: a
  # registration Redis did not answer about leaves the slice's jobs
  # unpushed, not in doubt, and pushed again each counts once.
  def test_through_a_pusher_a_registration_unanswered_leaves_its_jobs_unpushed
    previous = Deckhand::Client.pusher
    Deckhand::Client.pusher = ->(queued, scheduled, config) { Deckhand::Client.write(queued, scheduled, config) }
    choose = nth_slice(4)
    @proxy.cut_reply_to { |command| choose.call(command).tap { |chosen| @proxy.refuse = true if chosen } }
    parent = Deckhand::Batch.new
    error = assert_raises(Deckhand::PushIncomplete) { write(parent) }
    assert_equal [3_000, 0, 2_000], [error.pushed.size, error.in_doubt.size, error.unpushed.size]
    assert_equal queued.map { |job| job["jid"] }, error.pushed
    @proxy.refuse = false
    child_bid = error.unpushed.first["bid"]
    parent.jobs { error.unpushed.each { |job| Deckhand::Client.push(job) } }
    assert_each_job_once(parent, Deckhand::Batch.new(child_bid))
  ensure
    Deckhand::Client.pusher = previous
  end

  def test_a_slice_redis_has_not_answered_about_stays_in_doubt_until_it_does
    choose = nth_slice(4)
    @proxy.cut_reply_to { |command| choose.call(command).tap { |chosen| @proxy.refuse = true if chosen } }
    parent = Deckhand::Batch.new
    error = assert_raises(Deckhand::PushIncomplete) { write(parent) }
    assert_equal 3_000, error.pushed.size
    assert_equal 1_000, error.in_doubt.size
    assert_equal 1_000, error.unpushed.size
    assert_equal 4_000, redis.call("LLEN", "queue:default"), "Redis ran the slice whose reply was cut"
    refute error.recheck
    @proxy.refuse = false
    assert error.recheck
    assert_equal queued.map { |job| job["jid"] }, error.pushed, "Redis ran the slice in doubt"
    child_bid = error.unpushed.first["bid"]
    parent.jobs { error.unpushed.each { |job| Deckhand::Client.push(job) } }
    assert_each_job_once(parent, Deckhand::Batch.new(child_bid))
  end
end
