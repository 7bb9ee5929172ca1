# frozen_string_literal: true

# Runs in a drop-in child (test/dropin/enterprise_options_test.rb starts it):
# Sidekiq Enterprise's job options and periodic jobs, and sidekiq-unique-jobs'
# lock options, as an application declares them, against the test Redis.
require "minitest/autorun"
require "json"
require "sidekiq"
require "deckhand/periodic/job_builder"

class DropInUniqueJob
  include Sidekiq::Job

  sidekiq_options unique_for: 600, expires_in: 3600

  def perform(id) = id
end

class DropInUntilExecutedJob
  include Sidekiq::Job

  sidekiq_options lock: :until_executed, lock_ttl: 300, on_conflict: :raise

  def perform(id) = id
end

class DropInSecretJob
  include Sidekiq::Job

  sidekiq_options encrypt: true

  def perform(id, secrets) = [id, secrets]
end

class DropInWalkJob
  include Sidekiq::IterableJob

  sidekiq_options queue: "walks"

  def build_enumerator(items, cursor:) = array_enumerator(items, cursor: cursor)

  def each_iteration(item, _items) = Sidekiq.redis { |conn| conn.call("RPUSH", "walked", item) }
end

class EnterpriseOptionsInsideTest < Minitest::Test
  def setup
    Sidekiq.redis { |conn| conn.call("FLUSHDB") }
  end

  def teardown
    Deckhand.config = Deckhand::Config.new(redis: {url: ENV.fetch("REDIS_URL")})
  end

  def redis(*command) = Sidekiq.redis { |conn| conn.call(*command) }

  def test_enterprise_unique_for_and_expires_in_are_deckhands
    jid = DropInUniqueJob.perform_async(1)
    assert jid
    assert_nil DropInUniqueJob.perform_async(1), "a duplicate push while the lock is held"
    assert DropInUniqueJob.perform_async(2)
    job = JSON.parse(redis("LINDEX", "queue:default", -1))
    assert_equal jid, job["jid"]
    assert_equal jid, redis("GET", job.fetch("unique_key"))
    assert_in_delta Time.now.to_f + 3600, job.fetch("expires_at"), 60
  end

  def test_enterprise_encrypt_and_crypto_enable_seal_the_last_argument
    error = assert_raises(Deckhand::ConfigError) { DropInSecretJob.perform_async(7, {"card" => "4111"}) }
    assert_includes error.message, "no encryption keys are set"
    asked = []
    Sidekiq::Enterprise::Crypto.enable(active_version: 2) { |version| (asked << version) && "k#{version}" * 16 }
    DropInSecretJob.perform_async(7, {"card" => "4111"})
    stored = JSON.parse(redis("LINDEX", "queue:default", 0))
    refute_includes JSON.generate(stored), "4111"
    assert_equal [7, 2], [stored["args"].first, stored["args"].last["key_version"]]
    assert_equal [7, {"card" => "4111"}], Deckhand::Encryption.args(stored, Deckhand.config.encryption_keys)
    assert_equal [2], asked
    assert_raises(Deckhand::ConfigError) { Sidekiq::Enterprise::Crypto.enable(active_version: "v1") { "k" * 32 } }
  end

  def test_unique_jobs_locks_map_to_unique_for_and_unique_until
    assert_equal({"unique_for" => 300, "unique_until" => "success", "on_conflict" => "raise"},
      DropInUntilExecutedJob.get_sidekiq_options.slice("unique_for", "unique_until", "on_conflict"))
    refute DropInUntilExecutedJob.get_sidekiq_options.key?("lock")
    assert DropInUntilExecutedJob.perform_async(1)
    assert_raises(Deckhand::NotUnique) { DropInUntilExecutedJob.perform_async(1) }

    starting = Class.new { include Sidekiq::Job }
    starting.sidekiq_options lock: "until_executing", lock_ttl: 60, on_conflict: :log
    assert_equal({"unique_for" => 60, "unique_until" => "start"}, starting.get_sidekiq_options.slice("unique_for", "unique_until", "on_conflict"))
  end

  def test_unique_jobs_locks_without_a_match_raise_naming_the_option
    job = Class.new { include Sidekiq::Job }
    {
      {lock: :while_executing, lock_ttl: 5} => "lock: :while_executing",
      {lock: :until_expired, lock_ttl: 5} => "lock: :until_expired",
      {lock: :until_executed} => "without lock_ttl:",
      {lock: :until_executed, lock_ttl: 5, on_conflict: :replace} => "on_conflict: :replace",
      {lock: :until_executed, lock_ttl: 5, lock_timeout: 2} => "lock_timeout:"
    }.each do |options, named|
      error = assert_raises(Deckhand::DropIn::Unsupported, options.inspect) { job.sidekiq_options(options) }
      assert_includes error.message, named
    end
  end

  def test_enterprise_periodic_registers_deckhand_entries
    Sidekiq.default_configuration.periodic do |mgr|
      mgr.tz = "Europe/Paris"
      mgr.register("0 2 * * *", "NightlyJob", retry: 2, queue: "x")
      mgr.register("*/5 * * * *", DropInUniqueJob, args: [9], tz: "UTC")
    end
    nightly = Deckhand.config.periodic["NightlyJob"]
    assert_equal ["0 2 * * *", "Europe/Paris", "x", {"retry" => 2}], [nightly.cron, nightly.timezone, nightly.queue, nightly.options]
    job = Deckhand::Periodic::JobBuilder.new(Deckhand.config).build(nightly)
    assert_equal ["NightlyJob", "x", 2], job.values_at("class", "queue", "retry")
    every = Deckhand.config.periodic["DropInUniqueJob"]
    assert_equal ["UTC", [9], {}], [every.timezone, every.args, every.options]
    assert_equal 600, Deckhand::Periodic::JobBuilder.new(Deckhand.config).build(every)["unique_for"], "the class's own options"
    error = assert_raises(Deckhand::ConfigError) { Sidekiq.default_configuration.periodic { |mgr| mgr.register("0 3 * * *", "Other", retry: "x") } }
    assert_includes error.message, "retry"
  end

  def test_sidekiq_iterable_job_is_deckhands
    assert_raises(RuntimeError, "Sidekiq's error for an iterable job defining perform") do
      Class.new do
        include Sidekiq::IterableJob

        def perform = nil
      end
    end
    jid = DropInWalkJob.perform_async(%w[a b c])
    assert_equal ["DropInWalkJob", jid], JSON.parse(redis("LINDEX", "queue:walks", 0)).values_at("class", "jid")
    DropInWalkJob.new.tap { |job| job.jid = jid }.perform(%w[a b c])
    assert_equal %w[a b c], redis("LRANGE", "walked", 0, -1)
    assert_equal 0, redis("EXISTS", "it-#{jid}"), "a finished iterable job leaves no progress behind"
  end

  def test_sidekiq_limiter_is_deckhands
    erp = Sidekiq::Limiter.concurrent("erp", 1, wait_timeout: 0, lock_timeout: 30)
    assert_kind_of Deckhand::Limiter::Concurrent, erp
    inner = nil
    ran = erp.within_limit do
      inner = assert_raises(Sidekiq::Limiter::OverLimit) { erp.within_limit { :twice } }
      :ran
    end
    assert_equal :ran, ran
    assert_kind_of Deckhand::Limiter::OverLimit, inner
    assert_raises(Deckhand::DropIn::Unsupported) { Sidekiq::Limiter.configure }
  end
end
