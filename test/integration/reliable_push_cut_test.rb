# frozen_string_literal: true

require "test_helper"
require "support/cut_reply_proxy"

# Reliable push when a write's reply is cut, through a proxy in front of
# the private Redis: the buffer never holds what Redis already has. Redis
# is asked whether it ran the write; a write it has not answered about is
# held in doubt and asked about again before anything is written twice.
class ReliablePushCutTest < Minitest::Test
  JOBS = 5_000

  def setup
    super
    @proxy = Deckhand::CutReplyProxy.start(port: Deckhand::RedisHarness.server.port)
  end

  def teardown
    @proxy&.stop
    super
  end

  def reliable(**settings)
    config = new_config(redis: {url: @proxy.url, timeout: 2}, reliable_push: true, **settings)
    config.logger = Logger.new(@log = StringIO.new)
    Deckhand.config = config
  end

  def buffer = Deckhand::Client::PushBuffer.for(Deckhand.config)

  def args = Array.new(JOBS) { |i| [i] }

  def nth_push(nth)
    seen = 0
    ->(command) { command.first.casecmp?("LPUSH") && (seen += 1) == nth }
  end

  def queued_jids = jobs_in("default").reverse.map { |job| job["jid"] }

  def assert_each_job_once
    jobs = jobs_in("default")
    assert_equal (0...JOBS).to_a, jobs.map { |job| job["args"].first }.sort, "every job once"
    assert_equal JOBS, jobs.map { |job| job["jid"] }.uniq.size
  end

  def test_a_write_whose_reply_was_cut_is_not_held_when_redis_says_it_ran_it
    reliable
    @proxy.cut_reply_to(&nth_push(3))
    jids = RecordJob.perform_bulk(args)
    assert_equal 1, @proxy.cuts
    assert_equal 0, buffer.size, "nothing held: Redis has the slice"
    assert_equal queued_jids, jids
    assert_each_job_once
  end

  def test_a_single_push_whose_reply_was_cut_is_written_once
    reliable
    @proxy.cut_reply_to { |command| command.first.casecmp?("LPUSH") }
    jid = RecordJob.perform_async(1)
    assert_equal 1, @proxy.cuts
    assert_equal 0, buffer.size
    assert_equal [jid], queued_jids
  end

  # The reply of the third slice is cut and Redis stays out of reach; the
  # limit (its default, 1,000) leaves room for that slice only.
  def test_a_write_in_doubt_is_held_with_its_mark_and_not_written_twice
    reliable
    choose = nth_push(3)
    @proxy.cut_reply_to { |command| choose.call(command).tap { |chosen| @proxy.refuse = true if chosen } }
    error = assert_raises(Deckhand::PushIncomplete) { RecordJob.perform_bulk(args) }
    assert_kind_of Deckhand::ConnectionError, error
    assert_match(/reliable_push_limit 1000\); this push was not accepted/, error.message)
    assert_equal 1_000, buffer.size, "the third slice, held in doubt"
    assert_equal 3_000, redis.call("LLEN", "queue:default"), "Redis ran it before the reply was cut"
    assert_equal 3_000, error.pushed.size, "pushed: the slices Redis took and the one held for it"
    assert_equal args.drop(3_000), error.unpushed_args
    assert_empty error.in_doubt

    @proxy.refuse = false
    wait_for(message: "the held slice settled") { buffer.size.zero? }
    assert_equal queued_jids, error.pushed, "the held slice was asked about, not written again"
    RecordJob.perform_bulk(error.unpushed_args)
    assert_each_job_once
  end

  # The cut came before Redis ran the write: asked, Redis says so, and the
  # buffer writes it once Redis answers.
  def test_a_write_redis_did_not_run_is_held_and_written_once
    reliable(reliable_push_limit: 10_000)
    choose = nth_push(3)
    @proxy.cut_request_at { |command| choose.call(command).tap { |chosen| @proxy.refuse = true if chosen } }
    jids = RecordJob.perform_bulk(args)
    assert_equal 3_000, buffer.size, "the third slice and those behind it"
    assert_equal 2_000, redis.call("LLEN", "queue:default")
    @proxy.refuse = false
    wait_for(message: "the held slices written") { buffer.size.zero? }
    assert_equal queued_jids, jids
    assert_each_job_once
  end
end
