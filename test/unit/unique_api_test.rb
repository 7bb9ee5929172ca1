# frozen_string_literal: true

require "test_helper"
require "deckhand/api"
require "deckhand/server"

# Unique locks from the data API: seen on a job, released by hand, released
# by a kill; a deleted retry keeps its lock (as in Sidekiq Enterprise).
class UniqueApiTest < Minitest::Test
  def api = Deckhand::API.new

  def push_retry(args, jid: Deckhand::Payload.jid)
    job = {"class" => "RecordJob", "args" => args, "queue" => "default", "jid" => jid, "retry" => true,
           "unique_for" => 600, "retry_count" => 0, "error_class" => "RuntimeError", "error_message" => "x"}
    job["unique_key"] = Deckhand::Unique.key(job)
    redis.call("SET", job["unique_key"], jid, "EX", 600)
    redis.call("ZADD", "retry", Time.now.to_f + 3600, JSON.generate(job))
    job
  end

  def test_a_queued_jobs_lock_is_visible
    jid = RecordJob.set(unique_for: 600).perform_async(1)
    lock = api.unique_lock(api.queue("default").jobs.first)
    assert_equal jid, lock.holder
    assert lock.held?
    assert_operator lock.ttl_ms, :>, 590_000
    assert_nil api.unique_lock(JSON.parse(JSON.generate("class" => "RecordJob", "args" => [])))
  end

  def test_killing_a_retry_releases_its_lock_deleting_it_does_not
    killed = push_retry([1])
    deleted = push_retry([2])
    api.retries.kill([api.retries.find_jid(killed["jid"])])
    assert_equal 0, redis.call("EXISTS", killed["unique_key"])
    api.retries.delete([api.retries.find_jid(deleted["jid"])])
    assert_equal deleted["jid"], redis.call("GET", deleted["unique_key"])
    assert_equal 1, redis.call("ZCARD", "dead")
  end

  def test_release_lock_frees_only_the_jobs_own_lock
    job = push_retry([3])
    lock = api.unique_lock(job)
    assert lock.release
    assert_nil lock.holder
    redis.call("SET", job["unique_key"], "c" * 24)
    refute api.unique_lock(job).release, "another job's lock stays"
    assert_equal "c" * 24, redis.call("GET", job["unique_key"])
  end
end

# A poison pill's burial releases its lock.
class UniquePoisonTest < Minitest::Test
  def test_a_buried_poison_pill_releases_its_lock
    job = {"class" => "RecordJob", "args" => [1], "queue" => "default", "jid" => "p" * 24, "retry" => true, "unique_for" => 600}
    job["unique_key"] = Deckhand::Unique.key(job)
    redis.call("SET", job["unique_key"], job["jid"], "EX", 600)
    redis.call("HSET", Deckhand::Store::Layout::Plain.poison("default"), "gone:1:abc|#{job["jid"]}", JSON.generate(job))
    config = Deckhand.config
    assert_equal 1, Deckhand::Server::Recovery::Quarantine.new(config: config, store: config.store).bury_all(["default"])
    assert_equal 1, redis.call("ZCARD", "dead")
    assert_equal 0, redis.call("EXISTS", job["unique_key"])
  end
end
