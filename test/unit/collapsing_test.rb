# frozen_string_literal: true

require "test_helper"

# Debounced and deduplicated pushes (Deckhand::Collapsing): a burst of pushes
# of one key leaves one job, written with its record in one script.
class CollapsingTest < Minitest::Test
  class ReindexJob
    include Deckhand::Job

    deckhand_options debounce: {key: ->(args) { args.first }, wait: 30}

    def perform(*) = nil
  end

  class SyncJob
    include Deckhand::Job

    deckhand_options dedupe: {key: ->(args) { "account-#{args.first}" }, ttl: 600}

    def perform(*) = nil
  end

  class InlineJob
    include Deckhand::Job

    deckhand_options debounce: {key: ->(args) { "doc-#{args.first}" }, wait: 30}

    def perform(*) = Deckhand::TestJobs.record(deckhand_payload["debounce"])
  end

  # Pushes go straight to Redis here, even where an earlier test left
  # Deckhand::Testing's pusher in place; the pusher tests set their own.
  def setup
    super
    @pusher = Deckhand::Client.pusher
    Deckhand::Client.pusher = nil
  end

  def teardown
    Deckhand::Client.pusher = @pusher
    super
  end

  # A pusher that passes every push on, as push_after_commit does at commit.
  PASS_ON = ->(queued, scheduled, config) { Deckhand::Client.write(queued, scheduled, config) }

  def scheduled = zset("schedule")

  def redis_now
    seconds, micros = redis.call("TIME")
    seconds.to_i + micros.to_i / 1_000_000.0
  end

  def records(mode) = redis.call("KEYS", "deckhand:#{mode}:*")

  def test_a_burst_leaves_the_last_push_scheduled_its_wait_after_it_by_redis_clock
    jids = (1..5).map { |n| ReindexJob.perform_async("doc-1", n) }
    assert_equal 5, jids.compact.uniq.size, "every push of a burst is taken and answers its jid"
    before = redis_now
    last = ReindexJob.perform_async("doc-1", 6)
    after = redis_now
    assert_equal 1, scheduled.size
    job, score = scheduled.first
    assert_equal [last, ["doc-1", 6]], [job["jid"], job["args"]]
    assert_equal({"key" => "doc-1", "wait" => 30}, job["debounce"], "the job says why it waits")
    assert_operator score, :>=, (before + 30).floor(3)
    assert_operator score, :<=, after + 30.001
    refute job.key?("enqueued_at"), "a scheduled job is enqueued when it is due"
    assert_equal 0, redis.call("LLEN", "queue:default")
    key, = records("debounce")
    assert_equal [last, redis.call("ZRANGE", "schedule", 0, -1).first], redis.call("HMGET", key, "jid", "payload")
    assert_operator redis.call("PTTL", key), :>, 30_000 + 3_500_000, "the record outlives the wait"
  end

  def test_keys_are_scoped_by_key_class_and_queue
    ReindexJob.perform_async("doc-1")
    ReindexJob.perform_async("doc-2")
    ReindexJob.set(queue: "other").perform_async("doc-1")
    RecordJob.set(debounce: {key: "doc-1", wait: 30}).perform_async("doc-1")
    assert_equal 4, scheduled.size
    assert_equal 4, records("debounce").size
  end

  def test_without_a_key_the_args_are_the_key
    2.times { RecordJob.set(debounce: {wait: 30}).perform_async(1, "a") }
    RecordJob.set(debounce: {wait: 30}).perform_async(1, "b")
    assert_equal [[1, "a"], [1, "b"]], scheduled.map { |job, _| job["args"] }.sort_by(&:last)
  end

  def test_args_are_kept_byte_for_byte
    ReindexJob.perform_async("doc-1", "first")
    json = "[\"doc-1\",1.0,123456789012345678901234567890,\"caf\u00e9 \\u2028\",{\"b\":1,\"a\":[]},-0.0]"
    Deckhand::Client.push("class" => ReindexJob, "args" => JSON.parse(json))
    raw = redis.call("ZRANGE", "schedule", 0, -1)
    assert_equal 1, raw.size
    assert_includes raw.first, JSON.generate(JSON.parse(json)), "the payload carries the args as JSON wrote them"
    assert_equal JSON.parse(json), JSON.parse(raw.first)["args"]
  end

  def test_a_push_after_the_job_left_the_schedule_starts_a_new_burst
    first = ReindexJob.perform_async("doc-1", 1)
    raw = redis.call("ZRANGE", "schedule", 0, -1).first
    redis.call("ZREM", "schedule", raw) # the scheduler moved it: it is due, or running
    redis.call("LPUSH", "queue:default", raw)
    second = ReindexJob.perform_async("doc-1", 2)
    assert_equal [first], jobs_in("default").map { |job| job["jid"] }, "the job that left the schedule stays where it went"
    assert_equal [second], scheduled.map { |job, _| job["jid"] }
  end

  def test_dedupe_keep_leaves_the_waiting_job_and_answers_nil
    log = StringIO.new
    Deckhand.config.logger = Logger.new(log)
    jid = SyncJob.perform_async(7, "first")
    assert_nil SyncJob.perform_async(7, "second")
    assert SyncJob.perform_async(8, "other account")
    assert_equal [[7, "first"], [8, "other account"]], jobs_in("default").map { |job| job["args"] }.sort
    assert_includes log.string, "job #{jid} waits with the same dedupe key (account-7, on_conflict: keep)"
    ttl = redis.call("PTTL", records("dedupe").find { |key| redis.call("HGET", key, "jid") == jid })
    assert_operator ttl, :>, 590_000
    assert_operator ttl, :<=, 600_000
  end

  def test_dedupe_keep_drops_pushes_for_the_whole_window_even_after_the_job_ran
    SyncJob.perform_async(7)
    redis.call("DEL", "queue:default") # it ran
    assert_nil SyncJob.perform_async(7), "one job per key and window"
    assert_equal 0, redis.call("LLEN", "queue:default")
  end

  def test_dedupe_replace_takes_the_place_of_the_waiting_job_in_the_queue_or_the_schedule
    replace = {key: ->(args) { args.first }, ttl: 600, on_conflict: :replace}
    RecordJob.perform_async("unrelated")
    RecordJob.set(dedupe: replace).perform_async(7, "old")
    newer = RecordJob.set(dedupe: replace).perform_async(7, "new")
    assert_equal [["unrelated"], [7, "new"]], jobs_in("default").map { |job| job["args"] }.sort_by(&:size)
    assert_equal newer, jobs_in("default").first["jid"]
    RecordJob.set(dedupe: replace).perform_in(300, 8, "old")
    later = RecordJob.set(dedupe: replace).perform_in(300, 8, "new")
    assert_equal [[later, [8, "new"]]], scheduled.map { |job, _| [job["jid"], job["args"]] }
    RecordJob.set(dedupe: replace).perform_async(8, "now")
    assert_empty scheduled, "a push now replaces the one scheduled"
    assert_equal 3, redis.call("LLEN", "queue:default")
  end

  def test_dedupe_extend_leaves_the_waiting_job_and_restarts_the_window
    extend_window = {key: "nightly", ttl: 600, on_conflict: :extend}
    jid = RecordJob.set(dedupe: extend_window).perform_async(1)
    key, = records("dedupe")
    redis.call("PEXPIRE", key, 5_000) # most of the window gone
    assert_nil RecordJob.set(dedupe: extend_window).perform_async(2)
    assert_operator redis.call("PTTL", key), :>, 590_000
    assert_equal [jid], jobs_in("default").map { |job| job["jid"] }
  end

  def test_perform_bulk_collapses_its_jobs_in_one_script
    jids = ReindexJob.perform_bulk([["doc-1", 1], ["doc-2", 1], ["doc-1", 2]])
    assert_equal 3, jids.compact.size
    assert_equal [["doc-1", 2], ["doc-2", 1]], scheduled.map { |job, _| job["args"] }.sort
    assert_nil SyncJob.perform_bulk([[1], [1], [2]])[1]
    assert_equal 2, redis.call("LLEN", "queue:default")
  end

  def test_behind_a_pusher_the_write_collapses_by_redis_clock
    Deckhand::Client.pusher = PASS_ON
    3.times { |n| ReindexJob.perform_async("doc-1", n) }
    refute_nil SyncJob.perform_async(7, 0)
    assert_nil SyncJob.perform_async(7, 1), "kept out: nil, as without a pusher"
    assert_equal [true, false], SyncJob.perform_bulk([[8], [7]]).map { |jid| !jid.nil? }
    assert_equal [["doc-1", 2]], scheduled.map { |job, _| job["args"] }
    assert_operator scheduled.first.last, :>, redis_now + 29, "the wait counts from the write"
    assert_equal [[7, 0], [8]], jobs_in("default").map { |job| job["args"] }.sort
  end

  def test_perform_inline_runs_at_once_with_its_key_resolved
    InlineJob.perform_inline(1)
    assert_equal [{"key" => "doc-1", "wait" => 30}], Deckhand::TestJobs.runs
    assert_equal 0, redis.call("DBSIZE")
  end

  def test_a_false_option_pushes_without_collapsing
    2.times { |n| ReindexJob.set(debounce: false).perform_async("doc-1", n) }
    assert_equal 2, redis.call("LLEN", "queue:default")
    refute_includes redis.call("LRANGE", "queue:default", 0, -1).join, "debounce"
    assert_empty records("debounce")
  end

  def test_bad_options_fail_where_they_are_given
    error = assert_raises(ArgumentError) { Class.new { include Deckhand::Job }.deckhand_options(debounce: {key: "a"}) }
    assert_includes error.message, "wait: give a positive number of seconds"
    error = assert_raises(ArgumentError) { RecordJob.set(dedupe: {ttl: 60, on_conflict: :ignore}) }
    assert_includes error.message, "on_conflict: use :keep (the default), :replace or :extend"
    error = assert_raises(ArgumentError) { RecordJob.set(debounce: {key: "a", wiat: 5}) }
    assert_includes error.message, "unknown wiat"
    error = assert_raises(Deckhand::InvalidJob) { Deckhand::Client.push("class" => "RecordJob", "args" => [], "debounce" => {"wait" => "5"}) }
    assert_includes error.message, "RecordJob debounce:"
    error = assert_raises(Deckhand::InvalidJob) { ReindexJob.perform_in(60, "doc-1") }
    assert_includes error.message, "push it with perform_async"
    error = assert_raises(Deckhand::InvalidJob) { ReindexJob.set(unique_for: 60).perform_async("doc-1") }
    assert_includes error.message, "choose one"
    error = assert_raises(Deckhand::InvalidJob) { RecordJob.set(debounce: {key: ->(_) { [1] }, wait: 1}).perform_async }
    assert_includes error.message, "the callable gave [1]"
    assert_equal 0, redis.call("DBSIZE"), "nothing was written"
  end

  def test_a_record_of_another_type_refuses_the_push_with_nothing_written
    ReindexJob.perform_async("doc-1", 1)
    key, = records("debounce")
    payload = redis.call("HGET", key, "payload")
    redis.call("DEL", key)
    redis.call("SET", key, "not a record")
    error = assert_raises(Deckhand::CommandError) { ReindexJob.perform_async("doc-1", 2) }
    assert_includes error.message, "Deckhand keeps a hash at key \"#{key}\" but it holds a string; nothing was changed"
    assert_equal [payload], redis.call("ZRANGE", "schedule", 0, -1)
    redis.call("DEL", key)
    ReindexJob.perform_async("doc-1", 3)
    assert_equal [["doc-1", 1], ["doc-1", 3]], scheduled.map { |job, _| job["args"] }.sort, "a lost record costs a second run, never a lost job"
  end
end
