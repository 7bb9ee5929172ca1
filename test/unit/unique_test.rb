# frozen_string_literal: true

require "test_helper"
require "deckhand/api"

# encrypt: true: the secret bag is never in the clear in Redis, logs or
# errors, while perform receives it decrypted.
class EncryptionTest < Minitest::Test
  SECRET = "s3cr3t-card-4111111111111111"
  KEYS = {1 => "1" * 32, 2 => "2" * 32}.freeze

  class ChargeJob
    include Deckhand::Job

    deckhand_options encrypt: true, retry: 1

    def perform(order, bag)
      Deckhand::TestJobs.record([jid, order, bag])
      raise "card #{bag["card"]} declined" if order == "decline"
    end
  end

  def setup
    super
    @log = StringIO.new
    Deckhand.config = configured(active: 1, known: [1, 2])
  end

  def configured(active:, known:)
    config = new_config(concurrency: 2, heartbeat_interval: 0.1, scheduler_interval: 0.05, timeout: 2)
    config.logger = Logger.new(@log)
    config.encryption(active_version: active) { |version| KEYS[version] if known.include?(version) }
    config
  end

  # Every value of every key, read by type (DUMP would compress long strings).
  def everything_in_redis
    redis.call("KEYS", "*").map do |key|
      case redis.call("TYPE", key)
      when "string" then redis.call("GET", key)
      when "list" then redis.call("LRANGE", key, 0, -1)
      when "hash" then redis.call("HGETALL", key)
      when "set" then redis.call("SMEMBERS", key)
      when "zset" then redis.call("ZRANGE", key, 0, -1)
      else flunk "#{key}: unexpected type"
      end
    end.to_s
  end

  def test_the_bag_is_sealed_in_redis_and_opened_for_perform
    jid = ChargeJob.perform_async("o-1", {"card" => SECRET, "cvc" => 123})
    job = jobs_in("default").first
    assert_equal "o-1", job["args"].first, "the other arguments stay readable"
    envelope = job["args"].last
    assert_equal [1, 1], envelope.values_at("deckhand_encrypted", "key_version")
    refute_includes everything_in_redis, SECRET
    with_server do
      wait_for(message: "the run") { Deckhand::TestJobs.runs.any? }
    end
    assert_equal [[jid, "o-1", {"card" => SECRET, "cvc" => 123}]], Deckhand::TestJobs.runs
    refute_includes everything_in_redis, SECRET
    refute_includes @log.string, SECRET
  end

  def test_a_failure_keeps_the_envelope_untouched_and_the_secret_out_of_the_error
    ChargeJob.perform_async("decline", {"card" => SECRET})
    sealed = jobs_in("default").first["args"].last
    with_server do
      wait_for(message: "the retry") { redis.call("ZCARD", "retry") == 1 }
      retried = zset("retry").first.first
      assert_equal sealed, retried["args"].last, "never sealed twice"
      assert_equal "card [encrypted] declined", retried["error_message"]
      redis.call("ZADD", "retry", Time.now.to_f - 1, redis.call("ZRANGE", "retry", 0, 0).first) # due now
      wait_for(message: "the death") { redis.call("ZCARD", "dead") == 1 }
    end
    dead = zset("dead").first.first
    assert_equal sealed, dead["args"].last
    assert_equal 2, Deckhand::TestJobs.runs.size
    refute_includes everything_in_redis, SECRET
    refute_includes @log.string, SECRET
    assert_equal ["decline", "[encrypted]"], Deckhand::API.new.dead.page(1, 10).first.display_args
  end

  def test_keys_rotate_with_jobs_of_both_versions_in_flight
    old = ChargeJob.perform_async("old", {"card" => "old-#{SECRET}"})
    Deckhand.config = configured(active: 2, known: [1, 2])
    new = ChargeJob.perform_async("new", {"card" => "new-#{SECRET}"})
    assert_equal [1, 2], jobs_in("default").reverse.map { |j| j["args"].last["key_version"] }
    with_server do
      wait_for(message: "both runs") { Deckhand::TestJobs.runs.size == 2 }
    end
    assert_equal({old => "old-#{SECRET}", new => "new-#{SECRET}"}, Deckhand::TestJobs.runs.to_h { |jid, _, bag| [jid, bag["card"]] })
  end

  def test_a_missing_key_fails_clearly_and_the_job_retries
    ChargeJob.perform_async("o-2", {"card" => SECRET})
    Deckhand.config = configured(active: 2, known: [2])
    with_server do
      wait_for(message: "the retry") { redis.call("ZCARD", "retry") == 1 }
    end
    failed = zset("retry").first.first
    assert_equal "Deckhand::DecryptionError", failed["error_class"]
    assert_includes failed["error_message"], "no encryption key for version 1"
    assert_empty Deckhand::TestJobs.runs
  end

  def test_bad_setups_fail_where_they_are_made
    Deckhand.config = new_config
    error = assert_raises(Deckhand::ConfigError) { ChargeJob.perform_async("x", {"card" => SECRET}) }
    assert_includes error.message, "c.encryption"
    assert_raises(Deckhand::ConfigError) { new_config.encryption(active_version: 1) { "short" } }
    Deckhand.config = configured(active: 1, known: [1])
    error = assert_raises(Deckhand::InvalidJob) { ChargeJob.perform_async("x", "not a hash") }
    assert_includes error.message, "secret bag"
  end
end
