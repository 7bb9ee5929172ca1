# frozen_string_literal: true

require "test_helper"

# The server side of unique jobs: when each lock goes.
class UniqueServerTest < Minitest::Test
  # Fails while Redis key "flaky:<arg>" says so (decremented each run).
  class FlakyJob
    include Deckhand::Job

    deckhand_options unique_for: 600, retry: 3
    deckhand_retry_in { 3600 }

    def perform(name)
      left = Deckhand.config.store.call("DECR", "flaky:#{name}")
      Deckhand::TestJobs.record([jid, left])
      raise "failing on purpose (#{left} left)" if left >= 0
    end
  end

  class StartJob
    include Deckhand::Job

    deckhand_options unique_for: 600, unique_until: :start

    def perform(_name)
      Deckhand::TestJobs.record([jid, Deckhand.config.store.call("KEYS", "unique:*")])
    end
  end

  class DoomedJob
    include Deckhand::Job

    deckhand_options unique_for: 600, retry: 0

    def perform(*) = raise("always")
  end

  class DroppedJob
    include Deckhand::Job

    deckhand_options unique_for: 600, retry: false

    def perform(*) = raise("always")
  end

  def setup
    super
    Deckhand.config = new_config(concurrency: 2, heartbeat_interval: 0.1, scheduler_interval: 0.05, timeout: 2)
  end

  def locks = redis.call("KEYS", "unique:*")

  def test_success_releases_the_lock_with_its_acknowledgement
    jid = RecordJob.set(unique_for: 600).perform_async(1)
    with_server do |launcher|
      wait_for(message: "the run") { Deckhand::TestJobs.runs.any? }
      wait_for(message: "acknowledged") { inflight_payloads(launcher.identity).empty? && locks.empty? }
      assert RecordJob.set(unique_for: 600).perform_async(1), "a new copy may be pushed once the job succeeded"
      wait_for(message: "second run") { Deckhand::TestJobs.runs.size == 2 }
    end
    assert_equal jid, Deckhand::TestJobs.runs.first.first
  end

  def test_success_holds_the_lock_through_a_retry
    redis.call("SET", "flaky:a", 1) # fails once
    jid = FlakyJob.perform_async("a")
    with_server do
      wait_for(message: "the retry entry") { redis.call("ZCARD", "retry") == 1 }
      assert_equal jid, redis.call("GET", locks.first)
      assert_nil FlakyJob.perform_async("a"), "held while the job waits for its retry"
      redis.call("ZADD", "retry", Time.now.to_f - 1, redis.call("ZRANGE", "retry", 0, 0).first) # due now
      wait_for(message: "the success") { Deckhand::TestJobs.runs.size == 2 }
      wait_for(message: "the release") { locks.empty? }
    end
    assert_equal [jid, jid], Deckhand::TestJobs.runs.map(&:first)
  end

  def test_start_releases_the_lock_before_perform
    StartJob.perform_async("s")
    with_server do
      wait_for(message: "the run") { Deckhand::TestJobs.runs.any? }
    end
    assert_equal [], Deckhand::TestJobs.runs.first.last, "no lock left while perform runs"
  end

  def test_death_releases_the_lock_and_so_does_a_drop
    DoomedJob.perform_async(1)
    DroppedJob.perform_async(1)
    with_server do
      wait_for(message: "the death") { redis.call("ZCARD", "dead") == 1 }
      wait_for(message: "both locks released") { locks.empty? }
    end
    assert DoomedJob.perform_async(1)
  end

  def test_a_scheduled_unique_job_holds_its_lock_until_it_ran
    jid = RecordJob.set(unique_for: 60).perform_in(0.3, "later")
    assert_nil RecordJob.set(unique_for: 60).perform_async("later")
    with_server do
      wait_for(message: "the scheduled run") { Deckhand::TestJobs.runs.any? }
      wait_for(message: "the release") { locks.empty? }
    end
    assert_equal jid, Deckhand::TestJobs.runs.first.first
  end

  def test_a_payload_with_unique_for_and_no_key_releases_the_derived_key
    # What a Sidekiq Enterprise client sends: unique_for in the payload, its
    # lock under its own (unpublished) key. Deckhand releases the key it
    # derives from class, queue and args.
    payload = {"class" => "RecordJob", "args" => [9], "queue" => "default", "jid" => "a" * 24,
               "retry" => true, "unique_for" => 600, "created_at" => 1, "enqueued_at" => 1}
    key = Deckhand::Unique.key(payload)
    redis.call("SET", key, payload["jid"], "EX", 600)
    redis.call("LPUSH", "queue:default", JSON.generate(payload))
    with_server do
      wait_for(message: "the run") { Deckhand::TestJobs.runs.any? }
      wait_for(message: "the release") { redis.call("EXISTS", key) == 0 }
    end
  end

  def test_a_lock_another_job_took_meanwhile_is_not_released
    jid = RecordJob.set(unique_for: 600).perform_async(3)
    key = jobs_in("default").first["unique_key"]
    redis.call("SET", key, "b" * 24, "PX", 50_000) # as if the first lock expired and another push took it
    with_server do
      wait_for(message: "the run") { Deckhand::TestJobs.runs.any? }
      wait_for(message: "acknowledged") { redis.call("KEYS", "deckhand:lot:*").empty? }
    end
    assert_equal jid, Deckhand::TestJobs.runs.first.first
    assert_equal "b" * 24, redis.call("GET", key)
    assert_operator redis.call("PTTL", key), :>, 0
  end
end
