# frozen_string_literal: true

require_relative "../../support/batch/batch_helper"

# Batch#jobs on the client: what reaches Redis, when, and in how many trips.
class BatchJobsBlockTest < Minitest::Test
  include Deckhand::BatchHelpers

  def test_jobs_carry_the_bid_and_reach_redis_only_when_the_block_returns
    batch = Deckhand::Batch.new
    seen_inside = nil
    jids = batch.jobs do
      3.times { |i| BatchApp::Work.perform_async("w#{i}") }
      seen_inside = redis.call("LLEN", "queue:default")
    end
    assert_equal 0, seen_inside, "jobs were pushed before the block returned"
    jobs = jobs_in("default").reverse # the oldest runs first
    assert_equal jids, jobs.map { |job| job["jid"] }
    assert_equal [batch.bid] * 3, jobs.map { |job| job["bid"] }
    assert_equal %w[w0 w1 w2], jobs.map { |job| job["args"].first }
    assert jobs.all? { |job| job["enqueued_at"].is_a?(Integer) }
    status = batch.status
    assert_equal [3, 3, 0, false], [status.total, status.pending, status.failures, status.complete?]
  end

  # Sidekiq Pro writes the batch id as a String "bid" next to the job's own
  # fields; its servers and dashboards read that.
  def test_the_bid_is_a_sidekiq_pro_style_string_field_in_the_job_json
    batch = Deckhand::Batch.new
    batch.jobs { BatchApp::Work.perform_async("x") }
    raw = redis.call("LINDEX", "queue:default", 0)
    assert_match(/"bid":"#{Regexp.escape(batch.bid)}"/, raw)
    assert_match(/\A[A-Za-z0-9_-]{14}\z/, batch.bid)
  end

  def test_an_exception_in_the_block_leaves_nothing_in_redis
    batch = Deckhand::Batch.new
    batch.on(:success, BatchApp::Callbacks)
    error = assert_raises(RuntimeError) do
      batch.jobs do
        BatchApp::Work.perform_async("a")
        BatchApp::Work.perform_bulk([["b"], ["c"]])
        raise "the import file is truncated"
      end
    end
    assert_equal "the import file is truncated", error.message
    assert_equal [], redis.call("KEYS", "*")
    refute batch.created?
    # Pushes outside a batch block are not affected afterwards.
    BatchApp::Work.perform_async("later")
    refute jobs_in("default").first.key?("bid")
  end

  def test_a_payload_too_large_fails_the_whole_block_before_anything_is_written
    config = new_config(max_payload_bytes: 1024)
    Deckhand::Batch.install(config)
    Deckhand.config = config
    batch = Deckhand::Batch.new
    assert_raises(Deckhand::InvalidJob) do
      batch.jobs do
        BatchApp::Work.perform_async("small")
        BatchApp::Work.perform_async("x" * 2000)
      end
    end
    assert_equal [], redis.call("KEYS", "*")
  end

  # 2,500 jobs: one script call to create the batch, one per thousand jobs,
  # one to release it. No per-job round trip. (Without a pusher: the jobs
  # of a write through one go apart, as a marked push of their own.)
  def test_jobs_go_out_a_thousand_per_round_trip
    previous = Deckhand::Client.pusher
    Deckhand::Client.pusher = nil # Rails' push-after-commit, when another test loaded it
    redis.call("CONFIG", "RESETSTAT")
    batch = Deckhand::Batch.new
    batch.jobs { BatchApp::Work.perform_bulk(Array.new(2_500) { |i| ["r#{i}"] }) }
    stats = redis.call("INFO", "commandstats")
    evalsha = stats[/cmdstat_evalsha:calls=(\d+)/, 1].to_i + stats[/cmdstat_eval:calls=(\d+)/, 1].to_i
    assert_equal 5, evalsha
    assert_equal "3", stats[/cmdstat_lpush:calls=(\d+)/, 1], "one LPUSH of a thousand jobs per call"
    assert_equal 2_500, redis.call("LLEN", "queue:default")
    assert_equal 2_500, batch.status.pending
  ensure
    Deckhand::Client.pusher = previous
  end

  # Deckhand::Testing's fake mode and push-after-commit set a pusher: the
  # batch still records its jids, and its jobs go where every push goes.
  def test_a_client_pusher_receives_the_jobs_and_the_batch_still_counts_them
    delivered = []
    previous = Deckhand::Client.pusher
    Deckhand::Client.pusher = ->(queued, scheduled, _config) { delivered << [queued, scheduled] }
    batch = Deckhand::Batch.new
    jids = batch.jobs do
      BatchApp::Work.perform_async("now")
      BatchApp::Work.perform_in(600, "later")
    end
    assert_equal 0, redis.call("LLEN", "queue:default")
    assert_equal 0, redis.call("ZCARD", "schedule")
    assert_equal 1, delivered.size
    queued, scheduled = delivered.first
    assert_equal [[jids[0], batch.bid]], queued.fetch("default").map { |raw| JSON.parse(raw).values_at("jid", "bid") }
    assert_equal [jids[1], batch.bid], JSON.parse(scheduled[1]).values_at("jid", "bid")
    assert_equal [2, 2], [batch.status.total, batch.status.pending]
  ensure
    Deckhand::Client.pusher = previous
  end

  def test_scheduled_jobs_join_the_batch_in_the_schedule_set
    batch = Deckhand::Batch.new
    at = Time.now.to_f + 600
    jid = nil
    batch.jobs { jid = BatchApp::Work.perform_at(at, "later") }
    job, score = zset("schedule").first
    assert_equal [jid, batch.bid], job.values_at("jid", "bid")
    assert_in_delta at, score, 0.01
    assert_equal 1, batch.status.pending
  end

  def test_a_batch_with_no_jobs_succeeds_at_once
    batch = Deckhand::Batch.new
    batch.on(:success, BatchApp::Callbacks, "n" => 1)
    batch.on(:complete, "BatchApp::Callbacks")
    assert_equal [], batch.jobs {}
    callbacks = jobs_in("default").reverse
    assert_equal [["complete", "BatchApp::Callbacks", {}], ["success", "BatchApp::Callbacks", {"n" => 1}]],
      callbacks.map { |job| job["args"][1..] }
    assert_equal ["Deckhand::Batch::CallbackJob"], callbacks.map { |job| job["class"] }.uniq
    assert batch.status.success?
  end

  def test_callbacks_are_checked_when_registered
    batch = Deckhand::Batch.new
    assert_raises(ArgumentError) { batch.on(:finished, BatchApp::Callbacks) }
    assert_raises(ArgumentError) { batch.on(:success, nil) }
    assert_raises(Deckhand::InvalidJob) { batch.on(:success, BatchApp::Callbacks, "at" => Time.now) }
    assert_raises(ArgumentError) { batch.on(:success, BatchApp::Callbacks, [1]) }
    assert_raises(Deckhand::ConfigError) { batch.callback_queue = "" }
    assert_raises(Deckhand::ConfigError) { batch.success_ttl = 0 }
  end

  def test_an_existing_batch_takes_jobs_but_not_new_callbacks
    batch = Deckhand::Batch.new
    batch.jobs { BatchApp::Work.perform_async("first") }
    again = Deckhand::Batch.new(batch.bid)
    assert_raises(ArgumentError) { again.on(:success, BatchApp::Callbacks) }
    assert_raises(ArgumentError) { again.description = "renamed" }
    again.jobs { BatchApp::Work.perform_async("second") }
    assert_equal [2, 2], [batch.status.total, batch.status.pending]
  end

  def test_a_succeeded_or_unknown_batch_refuses_jobs
    batch = Deckhand::Batch.new
    batch.jobs {}
    error = assert_raises(Deckhand::Batch::Closed) { batch.jobs { BatchApp::Work.perform_async("late") } }
    assert_match(/succeeded already/, error.message)
    error = assert_raises(Deckhand::Batch::Closed) { Deckhand::Batch.new("nosuchbatch").jobs { BatchApp::Work.perform_async("x") } }
    assert_match(/does not exist/, error.message)
    assert_equal 0, redis.call("LLEN", "queue:default")
    assert_equal 0, redis.call("EXISTS", Deckhand::Store::Layout::PlainBatches.batch("nosuchbatch"))
  end

  def test_the_callback_queue_comes_from_the_install_settings_or_the_batch
    config = new_config
    Deckhand::Batch.install(config, callback_queue: "callbacks")
    Deckhand.config = config
    first = Deckhand::Batch.new
    first.on(:success, BatchApp::Callbacks)
    first.jobs {}
    second = Deckhand::Batch.new
    second.callback_queue = "urgent"
    second.on(:success, BatchApp::Callbacks)
    second.jobs {}
    assert_equal [first.bid], jobs_in("callbacks").map { |job| job["args"].first }
    assert_equal [second.bid], jobs_in("urgent").map { |job| job["args"].first }
    assert_equal 1, redis.call("SISMEMBER", "queues", "urgent")
  end

  def test_install_refuses_a_frozen_config_and_unknown_settings
    assert_raises(Deckhand::ConfigError) { Deckhand::Batch.install(new_config, linger: 5) }
    error = assert_raises(Deckhand::ConfigError) { Deckhand::Batch.install(new_config.freeze!) }
    assert_match(/before the server boots/, error.message)
  end
end
