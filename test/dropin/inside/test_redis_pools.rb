# frozen_string_literal: true

# Runs in a drop-in child (test/dropin/redis_pools_test.rb starts it): Sidekiq
# 7's Redis pools (RedisConnection.create, Config#redis_pool, Capsule#redis_pool,
# Sidekiq.redis_pool) and the connections they lend, on Deckhand's stores.
require "minitest/autorun"
require "logger"
require "stringio"
require "sidekiq"
require "sidekiq/api"

class PoolsShardJob
  include Sidekiq::Job
end

class RedisPoolsInsideTest < Minitest::Test
  def setup
    @url = ENV.fetch("REDIS_URL")
    @shard_url = @url.sub(%r{/\d*\z}, "/3")
    @config = Sidekiq::Config.new
    Sidekiq.redis { |conn| conn.flushdb }
    @pools = []
  end

  def teardown
    @pools.each(&:shutdown)
  end

  def create(options = {}) = Sidekiq::RedisConnection.create(options).tap { |pool| @pools << pool }

  def test_create_makes_a_new_pool_with_sidekiqs_defaults_on_each_call
    pool = create(url: @shard_url)
    assert_equal [5, 1], [pool.size, pool.timeout]
    refute_same pool, create(url: @shard_url)
    sized = create(url: @shard_url, size: 2, pool_timeout: 4, network_timeout: 8)
    assert_equal [2, 4], [sized.size, sized.timeout]
    conn = sized.checkout
    assert_kind_of Sidekiq::RedisClientAdapter::CompatClient, conn
    assert_equal [8, 3], [conn.config.read_timeout, conn.config.db]
    sized.checkin
    assert_equal 3.0, pool.with { |c| c.config.read_timeout }, "Sidekiq's network timeout of 3 seconds"
  end

  def test_pools_are_connection_pools_whose_every_method_works_over_a_store
    pool = create(url: @shard_url)
    assert_instance_of ConnectionPool, pool
    assert_instance_of ConnectionPool, Sidekiq.default_configuration.redis_pool
    missing = ConnectionPool.public_instance_methods(false) - Deckhand::DropIn::RedisPool.public_instance_methods(false)
    assert_empty missing, "ConnectionPool methods the drop-in pool would leave to an uninitialized ConnectionPool"
    assert_equal [5, 5, 0], [pool.size, pool.available, pool.idle]
    assert_equal "PONG", pool.then { |conn| conn.ping }
    assert_nil pool.reload
    assert_equal "PONG", pool.with { |conn| conn.ping }, "reload leaves the pool working"
  end

  def test_connections_answer_sidekiqs_command_methods
    pool = create(url: @shard_url)
    pool.with do |conn|
      conn.flushdb
      assert_equal "OK", conn.set("greeting", "hi", ex: 60)
      assert_equal "hi", conn.get("greeting")
      assert_equal [1, 2], conn.pipelined { |pipe| [pipe.incr("n"), pipe.incr("n")] }
      assert_includes conn.info.keys, "redis_version"
    end
    assert_nil Sidekiq.redis { |conn| conn.get("greeting") }, "the shard is database 3, the configuration's another"
  end

  def test_create_refuses_what_sidekiq_refuses_and_reads_redis_provider
    assert_includes assert_raises(ArgumentError) { create(namespace: "app") }.message, "uses the namespace 'app'"
    assert_includes assert_raises(RuntimeError) { create(protocol: 2) }.message, "RESP3"
    previous = ENV.to_h.slice("REDIS_PROVIDER", "SHARD_PROVIDED_URL", "REDIS_URL")
    ENV["REDIS_PROVIDER"] = "SHARD_PROVIDED_URL"
    ENV["SHARD_PROVIDED_URL"] = @shard_url
    assert_equal 3, create.with { |conn| conn.config.db }
    ENV["REDIS_PROVIDER"] = @shard_url
    assert_includes assert_raises(RuntimeError) { create }.message, "names the environment variable"
  ensure
    %w[REDIS_PROVIDER SHARD_PROVIDED_URL].each { |name| ENV.delete(name) }
    ENV.update(previous)
  end

  def test_create_logs_its_options_without_secrets_and_builds_sentinel_pools_without_connecting
    out = StringIO.new
    pool = create(url: "redis://:hunter2@127.0.0.1:1/0", password: "hunter2", logger: Logger.new(out),
      ssl_params: {verify_mode: 0})
    refute_includes out.string, "hunter2"
    refute_includes out.string, "ssl_params"
    assert_includes out.string, "REDACTED"
    assert_equal 5, pool.size
    sentinel = create("name" => "primary", "sentinels" => [{"host" => "127.0.0.1", "port" => 1, "password" => "s3cret"}])
    conn = sentinel.checkout
    assert_equal [["127.0.0.1", 1, "s3cret"]], conn.config.sentinels.map { |s| [s.host, s.port, s.password] }
    sentinel.checkin
    assert_includes sentinel.inspect, "redis+sentinel://127.0.0.1:1/primary"
  end

  def test_configuration_and_capsule_pools_are_sized_as_sidekiqs
    assert_equal 10, @config.redis_pool.size
    assert_same @config.redis_pool, @config.redis_pool
    @config.redis = {size: 3}
    assert_equal 3, @config.redis_pool.size
    assert_equal({url: @url}, @config.config.redis, "the options merge into REDIS_URL's, as in Sidekiq")
    @config.default_capsule.concurrency = 2
    other = Sidekiq::Capsule.new("other", @config)
    other.concurrency = 4
    assert_equal [2, 4], [@config.default_capsule.redis_pool.size, other.redis_pool.size]
    @config.redis_pool.with { |conn| conn.set("shared", "yes") }
    assert_equal "yes", other.redis_pool.with { |conn| conn.get("shared") }, "every pool reaches the configuration's Redis"
    assert_equal "yes", @config.redis { |conn| conn.get("shared") }
  end

  def test_redis_blocks_and_pools_follow_client_via
    shard = create(url: @shard_url, size: 1)
    shard.with(&:flushdb)
    queue = Sidekiq::Queue.new
    scheduled = Sidekiq::ScheduledSet.new
    Sidekiq::Client.via(shard) do
      PoolsShardJob.perform_async
      PoolsShardJob.perform_in(60)
      assert_same shard, Sidekiq.redis_pool
      assert_same shard, Sidekiq::Client.new.redis_pool
      assert_equal 1, Sidekiq.redis { |conn| conn.llen("queue:default") }
      assert_equal [1, 1], [queue.size, scheduled.size], "the data API made outside the block reads the shard"
    end
    assert_equal [0, 0], [queue.size, scheduled.size]
    assert_same shard, Sidekiq::Client.new(pool: shard).redis_pool
    refute_equal 3, Sidekiq::Client.new.redis_pool.with { |conn| conn.config.db }
  end

  def test_redis_blocks_reopen_once_after_a_failover_error_and_raise_redis_client_errors
    counts = []
    @config.redis do |conn|
      counts << conn.incr("opened")
      raise RedisClient::CommandError, "READONLY You can't write against a read only replica." if counts.size == 1
    end
    assert_equal [1, 2], counts
    assert_raises(Sidekiq::RedisClientAdapter::CommandError) do
      @config.redis { |_conn| raise RedisClient::CommandError, "READONLY still a replica" }
    end
    error = assert_raises(RedisClient::CommandError) { Sidekiq.redis { |conn| conn.call("NOSUCHCOMMAND") } }
    assert_includes error.message, "unknown command"
    assert_raises(ArgumentError) { @config.redis }
  end
end
