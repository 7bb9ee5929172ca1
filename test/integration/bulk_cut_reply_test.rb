# frozen_string_literal: true

require "test_helper"
require "support/cut_reply_proxy"

# A bulk push whose connection is cut in the third of its five slices,
# through a proxy in front of the private Redis: after Redis ran the slice
# (in the middle of its reply) or before the slice reached it. Redis is
# asked whether it ran the slice: the push either succeeds whole or raises
# an error that says exactly which jobs are queued and which are not, so
# that pushing the rest again queues every job once.
class BulkCutReplyTest < Minitest::Test
  JOBS = 5_000

  def setup
    super
    @proxy = Deckhand::CutReplyProxy.start(port: Deckhand::RedisHarness.server.port)
    Deckhand.config = new_config(redis: {url: @proxy.url, timeout: 2})
  end

  def teardown
    @proxy&.stop
    super
  end

  def args = Array.new(JOBS) { |i| [i] }

  # The `nth` write to the queue: a command of its own, or queued in the
  # transaction whose EXEC runs it.
  def nth_push(nth)
    seen = 0
    ->(command) { command.first.casecmp?("LPUSH") && (seen += 1) == nth }
  end

  # The jids in the queue, oldest first (jobs are pushed on the left).
  def queued_jids = jobs_in("default").reverse.map { |job| job["jid"] }

  def assert_each_job_once
    jobs = jobs_in("default")
    assert_equal (0...JOBS).to_a, jobs.map { |job| job["args"].first }.sort, "every job once"
    assert_equal JOBS, jobs.map { |job| job["jid"] }.uniq.size
  end

  def test_a_reply_cut_after_redis_ran_the_slice_costs_a_question_not_a_failure
    @proxy.cut_reply_to(&nth_push(3))
    jids = RecordJob.perform_bulk(args)
    assert_equal 1, @proxy.cuts, "the third slice's reply was cut"
    assert_equal queued_jids, jids, "every jid returned, each job once: Redis said it ran the slice"
    assert_each_job_once
  end

  def test_a_slice_that_never_reached_redis_is_told_exactly
    @proxy.cut_request_at(&nth_push(3))
    error = assert_raises(Deckhand::ConnectionError) { RecordJob.perform_bulk(args) }
    assert_equal 1, @proxy.cuts
    assert_respond_to error, :pushed, "the error tells what was pushed"
    assert_equal 2_000, redis.call("LLEN", "queue:default")
    assert_equal queued_jids, error.pushed, "the jids pushed, in order: exactly those Redis holds"
    assert_equal args.drop(2_000), error.unpushed_args
    assert_empty error.in_doubt
    assert_kind_of RedisClient::ConnectionError, error.cause, "the Redis error behind it"
    assert_match(/2,000 of 5,000 jobs pushed/, error.message)

    RecordJob.perform_bulk(error.unpushed_args)
    assert_each_job_once
  end

  def test_the_jobs_not_pushed_can_be_pushed_again_under_the_jids_they_had
    @proxy.cut_request_at(&nth_push(2))
    error = assert_raises(Deckhand::PushIncomplete) { RecordJob.perform_bulk(args) }
    assert_equal 1_000, error.pushed.size
    error.unpushed.each { |job| Deckhand::Client.push(job) }
    assert_each_job_once
    assert_equal error.pushed + error.unpushed.map { |job| job["jid"] }, queued_jids
  end

  # One job's push is not written as a transaction (that would cost every
  # push): its error says the job may have been queued.
  def test_a_single_push_whose_reply_was_cut_says_its_job_may_have_been_queued
    @proxy.cut_reply_to { |command| command.first.casecmp?("LPUSH") }
    error = assert_raises(Deckhand::ConnectionError) { RecordJob.perform_async(1) }
    assert_match(/The push of RecordJob \h+ was sent and its reply lost: Redis may have run it, so the job may have been queued/, error.message)
    assert_kind_of RedisClient::ConnectionError, error.cause
    assert_equal 1, redis.call("LLEN", "queue:default"), "it was"
    @proxy.refuse = true
    error = assert_raises(Deckhand::ConnectionError) { RecordJob.perform_async(2) }
    refute_match(/may have been queued/, error.message, "a push that could not connect was not sent")
  end

  # Redis ran the slice, and stays out of reach while the push waits to
  # ask it: the slice is in doubt, until Redis answers #recheck.
  def test_a_slice_redis_has_not_answered_about_stays_in_doubt_until_it_does
    choose = nth_push(3)
    @proxy.cut_reply_to do |command|
      choose.call(command).tap { |chosen| @proxy.refuse = true if chosen }
    end
    error = assert_raises(Deckhand::PushIncomplete) { RecordJob.perform_bulk(args) }
    assert_equal 3_000, redis.call("LLEN", "queue:default")
    assert_equal queued_jids.first(2_000), error.pushed
    assert_equal 1_000, error.in_doubt.size
    assert_equal args.drop(3_000), error.unpushed_args
    assert_match(/1,000 in doubt/, error.message)
    refute error.recheck, "Redis still does not answer"

    @proxy.refuse = false
    assert error.recheck
    assert_empty error.in_doubt
    assert_equal queued_jids, error.pushed, "Redis ran the slice in doubt"
    RecordJob.perform_bulk(error.unpushed_args)
    assert_each_job_once
  end
end
