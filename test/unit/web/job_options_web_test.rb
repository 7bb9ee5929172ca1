# frozen_string_literal: true

require "test_helper"
require_relative "../../support/web/web_helpers"

# The dashboard and the job options: unique locks on a job's page (with
# "release lock"), a debounce or dedupe and its last push, the expired
# count, encrypted bags masked; all escaped.
class JobOptionsWebTest < Minitest::Test
  include Deckhand::WebHelpers

  def locked_retry(jid)
    job = retry_job(jid, "unique_for" => 600)
    job["unique_key"] = Deckhand::Unique.key(job)
    redis.call("SET", job["unique_key"], jid, "EX", 600)
    add_to("retry", job)
    job
  end

  def test_a_jobs_page_shows_its_lock_and_releases_it
    job = locked_retry("a" * 24)
    page = get("/retries/#{key_of(:retries, job["jid"])}").body
    assert_includes page, "Unique lock"
    assert_includes page, job["unique_key"]
    assert_includes page, "this job"
    assert_includes page, "Release lock"
    response = post("/retries/#{key_of(:retries, job["jid"])}", "action" => "unlock")
    assert_redirect response, "/retries/#{key_of(:retries, job["jid"])}", notice: "unlocked.0"
    assert_equal 0, redis.call("EXISTS", job["unique_key"])
    page = get(response.headers["location"]).body
    assert_includes page, "the lock is free"
    refute_includes page, "Release lock"
    assert_equal 1, redis.call("ZCARD", "retry"), "the job itself stays"
  end

  def test_another_holder_is_shown_escaped_and_not_released
    job = locked_retry("b" * 24)
    redis.call("SET", job["unique_key"], "<script>alert(1)</script>")
    page = get("/retries/#{key_of(:retries, job["jid"])}").body
    assert_includes page, "&lt;script&gt;alert(1)&lt;/script&gt;"
    refute_includes page, "<script>alert"
    refute_includes page, "Release lock"
    assert_redirect post("/retries/#{key_of(:retries, job["jid"])}", "action" => "unlock"),
      "/retries/#{key_of(:retries, job["jid"])}", notice: "not_locked.0"
    assert_equal "<script>alert(1)</script>", redis.call("GET", job["unique_key"])
  end

  def test_the_dashboard_counts_expired_jobs
    redis.call("SET", "stat:expired", "1234")
    assert_match(/Expired.*1,234/m, get("/").body)
    assert_equal 1234, JSON.parse(get("/stats.json").body)["expired"]
  end

  def test_an_encrypted_bag_is_masked_on_the_jobs_page
    Deckhand.config.encryption(active_version: 1) { "k" * 32 }
    job = retry_job("c" * 24, "args" => ["order-7", {"card" => "4111-secret"}], "encrypt" => true)
    Deckhand::Encryption.seal!(job, Deckhand.config.encryption_keys)
    add_to("dead", job)
    page = get("/dead/#{key_of(:dead, job["jid"])}").body
    assert_includes page, "[encrypted]"
    assert_includes page, "order-7"
    refute_includes page, job["args"].last["data"], "not even the ciphertext"
    refute_includes page, "4111-secret"
  end

  def test_a_debounced_jobs_page_shows_its_key_wait_and_last_push_escaped
    job = {"class" => "RecordJob", "args" => [1], "jid" => "d" * 24, "queue" => "default", "debounce" => {"key" => "<b>doc</b>", "wait" => 5}}
    record = Deckhand::Collapsing.key(job, "debounce", Deckhand::Store::Layout::Plain)
    redis.call("HSET", record, "jid", job["jid"], "payload", JSON.generate(job))
    redis.call("PEXPIRE", record, 60_000)
    add_to("schedule", job, score: Time.now.to_f + 5)
    page = get("/scheduled/#{key_of(:scheduled, job["jid"])}").body
    assert_includes page, "<h3>Debounce</h3>"
    assert_includes page, "&lt;b&gt;doc&lt;/b&gt;"
    assert_includes page, "after the last push"
    assert_includes page, "this job"
    redis.call("HSET", record, "jid", "e" * 24)
    assert_includes get("/scheduled/#{key_of(:scheduled, job["jid"])}").body, "e" * 24, "a later push of the key"
  end
end
