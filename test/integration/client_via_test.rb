# frozen_string_literal: true

require "test_helper"
require_relative "../support/second_redis"

# Client-side sharding on two real redis-servers: the harness' (the
# configuration's) and a second one (SecondRedis).
class ClientViaTest < Minitest::Test
  class EuJob
    include Deckhand::Job

    deckhand_options queue: "eu", pool: Deckhand::SecondRedis.url

    def perform(*args) = Deckhand::TestJobs.record([jid, args])
  end

  def setup
    super
    other.call("FLUSHALL")
  end

  def other = Deckhand::SecondRedis.client

  def other_store = Deckhand::SecondRedis.store

  def other_jobs(queue) = other.call("LRANGE", "queue:#{queue}", 0, -1).map { |raw| JSON.parse(raw) }

  def test_pushes_in_a_via_block_go_to_the_other_redis_and_nothing_else_does
    jid = Deckhand::Client.via(other_store) { RecordJob.perform_async("eu", {"n" => 1}) }
    after = RecordJob.perform_async("main")
    assert_equal [[jid, ["eu", {"n" => 1}]]], other_jobs("default").map { |job| [job["jid"], job["args"]] }
    assert_equal ["default"], other.call("SMEMBERS", "queues")
    assert_equal [after], jobs_in("default").map { |job| job["jid"] }
    refute other_jobs("default").first.key?("pool")
  end

  def test_every_kind_of_push_follows_the_block
    Deckhand::Client.via(other_store) do
      RecordJob.perform_in(300, "later")
      RecordJob.perform_at(Time.now + 600, "much later")
      assert_equal 3, RecordJob.perform_bulk([[1], [2], [3]]).size
      Deckhand::Client.push("class" => "Elsewhere", "args" => [4], "queue" => "other")
      Deckhand::Client.push_bulk("class" => "Elsewhere", "args" => [[5], [6]], "queue" => "other", "at" => Time.now.to_f + 60)
    end
    assert_equal [1, 2, 3], other_jobs("default").map { |job| job["args"].first }.sort
    assert_equal [[4]], other_jobs("other").map { |job| job["args"] }
    scheduled = other.call("ZRANGE", "schedule", 0, -1).map { |raw| JSON.parse(raw)["args"].first }
    assert_equal ["later", "much later", 5, 6].map(&:to_s).sort, scheduled.map(&:to_s).sort
    assert_equal 0, redis.call("DBSIZE"), "nothing reached the configuration's Redis"
  end

  def test_nested_blocks_innermost_wins_and_each_is_restored_also_on_error
    Deckhand::Client.via(other_store) do
      Deckhand::Client.via(Deckhand::RedisHarness.url) { RecordJob.perform_async("inner") }
      RecordJob.perform_async("outer")
      assert_raises(RuntimeError) { Deckhand::Client.via(Deckhand::RedisHarness.url) { raise "boom" } }
      RecordJob.perform_async("outer after an error")
    end
    RecordJob.perform_async("outside")
    assert_equal ["outer", "outer after an error"], other_jobs("default").map { |job| job["args"].first }.sort
    assert_equal ["inner", "outside"], jobs_in("default").map { |job| job["args"].first }.sort
    assert_nil Deckhand::Client.via_target
  end

  def test_a_block_routes_only_its_own_thread
    inside = Queue.new
    go_on = Queue.new
    pusher = Thread.new do
      inside.pop
      RecordJob.perform_async("other thread")
      go_on << true
    end
    Deckhand::Client.via(other_store) do
      inside << true
      go_on.pop
      RecordJob.perform_async("this thread")
    end
    pusher.join
    assert_equal ["this thread"], other_jobs("default").map { |job| job["args"].first }
    assert_equal ["other thread"], jobs_in("default").map { |job| job["args"].first }
  end

  def test_a_class_pool_routes_its_pushes_and_set_and_via_take_precedence_as_in_sidekiq
    EuJob.perform_async(1)
    EuJob.perform_in(60, 2)
    assert_equal [[1]], other_jobs("eu").map { |job| job["args"] }
    assert_equal 1, other.call("ZCARD", "schedule")
    refute other_jobs("eu").first.key?("pool"), "the pool is not stored in the job"

    Deckhand::Client.via(Deckhand::RedisHarness.url) { EuJob.perform_async(3) }
    assert_equal [[3]], jobs_in("eu").map { |job| job["args"] }, "a via block wins over the class's pool"

    Deckhand::Client.via(Deckhand::RedisHarness.url) { EuJob.set(pool: other_store).perform_async(4) }
    assert_equal [[4], [1]], other_jobs("eu").map { |job| job["args"] }, "set(pool:) wins over a via block"
  end

  def test_the_same_url_or_options_share_one_store_and_inspect_hides_the_password
    url = Deckhand::SecondRedis.url
    assert_same Deckhand::Client::Target.for(url).store, Deckhand::Client::Target.for(url).store
    assert_same Deckhand::Client::Target.for({"url" => url}).store, Deckhand::Client::Target.for({url: url}).store
    assert_same EuJob.deckhand_options["pool"], Deckhand::Client::Target.for(url)
    secret = Deckhand::Client::Target.for({url: "redis://app:s3cret@10.0.0.9:6390/1", size: 2})
    assert_equal "#<Deckhand::Client::Target redis://10.0.0.9:6390/1>", secret.inspect
    refute_includes({"pool" => secret}.inspect, "s3cret")
  end

  # Sidekiq's sharding guide builds its pools so; Deckhand reads where they
  # point and pushes through a store of its own (the pool's connections stay unused).
  def test_a_connection_pool_of_redis_clients_is_taken_as_the_redis_it_points_to
    pool = ConnectionPool.new(size: 2) { RedisClient.config(url: Deckhand::SecondRedis.url).new_client }
    jid = Deckhand::Client.via(pool) { RecordJob.perform_async("sharded") }
    assert_equal [jid], other_jobs("default").map { |job| job["jid"] }
    assert_empty jobs_in("default")
    assert_same Deckhand::Client::Target.for(pool), Deckhand::Client::Target.for(pool), "one store per pool"
    RecordJob.set(pool: pool).perform_async("by set")
    assert_equal 2, other_jobs("default").size
  end

  def test_bad_targets_are_refused_where_they_are_given_naming_the_fix
    error = assert_raises(Deckhand::ConfigError) { Deckhand::Client.via(Object.new) { flunk "the block must not run" } }
    assert_includes error.message, "Deckhand::Client.via takes another Redis as a Deckhand::Store"
    error = assert_raises(Deckhand::ConfigError) { Deckhand::Client.via(ConnectionPool.new { nil }) { nil } }
    assert_includes error.message, "A ConnectionPool is taken when its connections are redis-client's"
    error = assert_raises(Deckhand::ConfigError) { Deckhand::Client.via("app:s3cret@10.0.0.9:6390") { nil } }
    refute_includes error.message, "s3cret"
    assert_includes error.message, "write redis://"
    assert_raises(Deckhand::ConfigError) { Deckhand::Client.via(nil) { nil } }
    stand_in = ConnectionPool.new(size: 1) { Minitest::Mock.new } # answers nothing it was not told to
    error = assert_raises(Deckhand::ConfigError) { Deckhand::Client.via(stand_in) { nil } }
    assert_includes error.message, "A ConnectionPool is taken when"

    error = assert_raises(Deckhand::ConfigError) { Class.new { include Deckhand::Job }.deckhand_options(pool: :eu) }
    assert_includes error.message, "pool: takes another Redis"
    error = assert_raises(Deckhand::ConfigError) { Class.new { include Deckhand::Job }.deckhand_options(pool: {url: "x", bogus: 1}) }
    assert_includes error.message, "has no scheme"
    error = assert_raises(Deckhand::ConfigError) { Class.new { include Deckhand::Job }.deckhand_options(pool: {url: "redis://h:1/0", bogus: 1}) }
    assert_includes error.message, "not all redis-client options"
    assert_raises(Deckhand::ConfigError) { RecordJob.set(pool: 42) }
  end

  def test_unique_and_encrypted_pushes_take_their_lock_in_the_other_redis
    unique = Class.new do
      include Deckhand::Job

      deckhand_options unique_for: 60

      def self.name = "ClientViaTest::UniqueJob"
    end
    first = Deckhand::Client.via(other_store) { unique.perform_async(1) }
    assert first
    assert_nil Deckhand::Client.via(other_store) { unique.perform_async(1) }, "the lock is held there"
    assert unique.perform_async(1), "the configuration's Redis holds no lock for it"
    assert_equal [first], other_jobs("default").map { |job| job["jid"] }
  end

  def test_reliable_push_holds_jobs_for_the_other_redis_in_its_own_buffer
    Deckhand.config = new_config(reliable_push: true)
    jid = Deckhand::Client.via(other_store) { RecordJob.perform_async("reliable") }
    assert_equal [jid], other_jobs("default").map { |job| job["jid"] }
    routed = Deckhand::Client::Target.for(other_store).config_for(Deckhand.config)
    assert_same other_store, routed.store
    refute_same Deckhand::Client::PushBuffer.for(Deckhand.config), Deckhand::Client::PushBuffer.for(routed)
  end

  def test_a_periodic_job_of_a_class_with_a_pool_is_pushed_by_its_server_without_the_pool
    config = new_config
    config.periodic { |cron| cron.register("* * * * *", "ClientViaTest::EuJob", name: "eu") }
    jid = Deckhand::Periodic::JobBuilder.new(config).push_now(config.periodic.entries.first)
    job = jobs_in("eu").first
    assert_equal jid, job["jid"]
    refute job.key?("pool")
    assert_equal 0, other.call("DBSIZE")
  end

  def test_a_server_on_the_other_redis_runs_the_jobs_pushed_there
    jid = EuJob.set(queue: "default").perform_async("served")
    server_config = new_config(redis: {url: Deckhand::SecondRedis.url})
    with_server(server_config) do
      wait_for(message: "the job to run on the second Redis' server") { Deckhand::TestJobs.runs.any? { |run_jid, _| run_jid == jid } }
    end
    assert_equal 0, other.call("LLEN", "queue:default")
    assert_equal 0, redis.call("DBSIZE"), "nothing went through the configuration's Redis"
  end
end
