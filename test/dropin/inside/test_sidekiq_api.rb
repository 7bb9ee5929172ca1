# frozen_string_literal: true

# Runs in a drop-in child (test/dropin/sidekiq_api_test.rb starts it): the
# sidekiq gem is absent, `-rdeckhand/sidekiq` is loaded, REDIS_URL points at
# the test Redis (flushed by the parent). Each test names the Sidekiq API it maps.
require "minitest/autorun"
require "json"
require "logger"
require "stringio"
require "sidekiq"
require "sidekiq/api"
require "sidekiq/web"
require "rack/mock"
require "rack/auth/basic"

class DropInHardJob
  include Sidekiq::Job

  sidekiq_options queue: "low", retry: 4, custom: "kept"
  sidekiq_retry_in { |count, _error, _job| count * 10 }
  sidekiq_retries_exhausted { |job, _error| job["args"] }

  def perform(value) = Sidekiq.redis { |conn| conn.rpush("inside:done", "#{jid}:#{value}") }
end

class DropInWorker
  include Sidekiq::Worker

  def perform = nil
end

class DropInAuditMiddleware
  include Sidekiq::ServerMiddleware

  def call(_job, _payload, _queue) = yield
end

class SidekiqApiInsideTest < Minitest::Test
  def setup
    Sidekiq.redis { |conn| conn.call("FLUSHDB") }
  end

  def redis(*command) = Sidekiq.redis { |conn| conn.call(*command) }

  def test_the_files_apps_require_resolve_to_deckhand_without_the_sidekiq_gem
    assert_empty Gem::Specification.find_all_by_name("sidekiq"), "no sidekiq gem visible to this process"
    assert_equal Deckhand::VERSION, Sidekiq::DECKHAND
    features = $LOADED_FEATURES.grep(%r{/sidekiq(/|\.rb)})
    refute_empty features
    assert(features.all? { |path| path.include?("/lib/deckhand/") }, features.join("\n"))
    refute Sidekiq.pro?
  end

  def test_sidekiq_job_and_worker_push_with_their_options
    assert_equal Sidekiq::Job, Sidekiq::Worker
    assert_equal({"retry" => 4, "queue" => "low", "custom" => "kept"}, DropInHardJob.get_sidekiq_options)
    assert_equal 20, DropInHardJob.sidekiq_retry_in_block.call(2, nil, nil)
    assert_equal [1], DropInHardJob.sidekiq_retries_exhausted_block.call({"args" => [1]}, nil)

    jid = DropInHardJob.perform_async(1)
    job = JSON.parse(redis("LINDEX", "queue:low", 0))
    assert_equal [jid, "DropInHardJob", [1], 4, "kept"], job.values_at("jid", "class", "args", "retry", "custom")
    DropInHardJob.set(queue: "high").perform_async(2)
    assert_equal 1, redis("LLEN", "queue:high")
    DropInHardJob.perform_in(60, 3)
    DropInHardJob.perform_at(Time.now + 120, 4)
    assert_equal 2, redis("ZCARD", "schedule")
    assert_equal 3, DropInHardJob.perform_bulk([[5], [6], [7]]).size
    assert_equal 4, redis("LLEN", "queue:low")
    DropInHardJob.perform_inline(8)
    assert_match(/:8\z/, redis("LRANGE", "inside:done", 0, -1).first)
    if Sidekiq::VERSION.start_with?("8.")
      assert_raises(ArgumentError, "Sidekiq 8's perform_inline checks its arguments") { DropInHardJob.perform_inline(mike: 456) }
    else
      DropInHardJob.perform_inline(mike: 456)
      assert_match(/:\{"mike" ?=> ?456\}\z/, redis("LRANGE", "inside:done", 0, -1).last, "Sidekiq 7.3's perform_inline passes arguments as JSON makes them")
    end
    assert_raises(ArgumentError) { DropInHardJob.perform_async(mike: 456) }
    assert DropInWorker.perform_async
  end

  # Sharding, with database 1 of the test Redis as the second shard.
  def test_client_via_and_sidekiq_options_pool_push_to_the_pool_of_redis_connection_create
    shard = Sidekiq::RedisConnection.create(url: ENV.fetch("REDIS_URL").sub(%r{/\d*\z}, "/1"), size: 2, network_timeout: 3, pool_name: "two")
    refute_same shard, Sidekiq::RedisConnection.create(url: ENV.fetch("REDIS_URL").sub(%r{/\d*\z}, "/1"), size: 2, network_timeout: 3), "a new pool each call, as in Sidekiq"
    shard.with { |conn| conn.call("FLUSHDB") }
    sharded = Class.new(DropInHardJob) { sidekiq_options pool: shard }
    def sharded.name = "ShardedHardJob"
    in_shard = ->(queue) { shard.with { |conn| conn.call("LRANGE", "queue:#{queue}", 0, -1) }.map { |raw| JSON.parse(raw)["args"] } }

    Sidekiq::Client.via(shard) { DropInHardJob.perform_async("via") }
    sharded.perform_async("class pool")
    Sidekiq::Client.new(pool: shard).push("class" => DropInHardJob, "args" => ["client pool"])
    Sidekiq::Client.via(shard) { sharded.set(pool: ENV.fetch("REDIS_URL")).perform_async("set pool wins") }
    sharded.client_push("args" => ["client_push"], "pool" => ENV.fetch("REDIS_URL"))
    assert_equal [["client pool"], ["class pool"], ["via"]], in_shard.call("low")
    assert_equal [["client_push"], ["set pool wins"]], Sidekiq.redis { |conn| conn.call("LRANGE", "queue:low", 0, -1) }.map { |raw| JSON.parse(raw)["args"] }
    assert_empty shard.with { |conn| conn.call("LRANGE", "queue:low", 0, -1) }.map { |raw| JSON.parse(raw) }.select { |job| job.key?("pool") }

    assert_equal 3, Sidekiq::Client.via(shard) { Sidekiq.redis { |conn| conn.llen("queue:low") } }, "Sidekiq.redis follows via, as in Sidekiq"

    error = assert_raises(Deckhand::ConfigError) { Class.new { include Sidekiq::Job }.sidekiq_options(pool: ConnectionPool.new { nil }) }
    assert_includes error.message, "Sidekiq::RedisConnection.create(url:"
  end

  def test_sidekiq_client_push_and_push_bulk
    jid = Sidekiq::Client.push("class" => DropInHardJob, "args" => [1])
    assert_equal [jid, "low"], JSON.parse(redis("LINDEX", "queue:low", 0)).values_at("jid", "queue"), "the class's options apply"
    Sidekiq::Client.push("class" => "SomewhereElseJob", "args" => [2], "queue" => "elsewhere")
    assert_equal 1, redis("LLEN", "queue:elsewhere")
    assert_equal 2, Sidekiq::Client.push_bulk("class" => DropInHardJob, "args" => [[3], [4]]).size
    assert_equal 3, Sidekiq::Client.new.push_bulk("class" => "Bulk", "args" => [[1], [2], [3]], "queue" => "bulk").size
    assert_includes assert_raises(Deckhand::ConfigError) { Sidekiq::Client.via(Object.new) { nil } }.message, "Sidekiq::RedisConnection.create"
    assert_includes assert_raises(Deckhand::ConfigError) { Sidekiq::Client.new(pool: Object.new) }.message, "pool:"
  end

  def test_configure_server_and_client_write_deckhand_config
    server_ran = false
    Sidekiq.configure_server { server_ran = true }
    refute server_ran, "not a server process: configure_server's block does not run"
    Sidekiq.configure_client { |config| config.redis = {url: ENV.fetch("REDIS_URL"), size: 5, network_timeout: 3} }
    assert_equal({url: ENV.fetch("REDIS_URL"), timeout: 3}, Deckhand.config.redis)

    config = Sidekiq.default_configuration
    config.concurrency = 7
    config.queues = [["critical", 3], "default"]
    config[:timeout] = 9
    config.capsule("single") do |cap|
      cap.concurrency = 1
      cap.queues = %w[single]
    end
    config.server_middleware { |chain| chain.add DropInAuditMiddleware }
    config.client_middleware { |chain| assert chain.empty? }
    config.on(:startup) { nil }
    config.error_handlers << ->(error, context, _config) { [error, context] }
    deaths = Deckhand.config.death_handlers.size
    config.death_handlers << ->(job, error) { [job, error] }
    deckhand = Deckhand.config
    assert_equal [7, ["critical,3", "default"], 9], [deckhand.concurrency, deckhand.queues, deckhand.timeout]
    assert_equal 9, config[:timeout]
    assert_equal 1, deckhand.capsules.fetch("single").concurrency
    assert deckhand.server_middleware.include?(DropInAuditMiddleware)
    assert config.server_middleware.exists?(DropInAuditMiddleware)
    handler = deckhand.error_handlers.last
    assert_equal({job: {"class" => "X"}}, handler.call(RuntimeError.new, {"job" => {"class" => "X"}}).last, "Sidekiq's symbol keys")
    assert_equal deaths + 1, deckhand.death_handlers.size

    log = StringIO.new
    config.logger = Logger.new(log)
    assert_same Sidekiq.logger, deckhand.logger
    config.super_fetch!
    assert_includes log.string, "super_fetch!"
    config.on(:beat) { :beaten }
    assert_equal :beaten, deckhand.events.handlers(:beat).last.call, "the heartbeat's events are Deckhand's"
    assert_match(/Invalid event name: beta/, assert_raises(ArgumentError) { config.on(:beta) {} }.message)
    assert_includes assert_raises(Deckhand::DropIn::Unsupported) { config.average_scheduled_poll_interval_please }.message, "config.average_scheduled_poll_interval_please"
    assert_includes assert_raises(Deckhand::DropIn::Unsupported) { config[:strict] = true }.message, "config[:strict]"
    config.server_middleware { |chain| chain.insert_before(DropInAuditMiddleware, DropInHardJob) }
    assert_equal [DropInHardJob, DropInAuditMiddleware], config.server_middleware.entries.map(&:klass).last(2)
    assert_nil Sidekiq.strict_args!
  ensure
    Deckhand.config = Deckhand::Config.new(redis: {url: ENV.fetch("REDIS_URL")})
  end

  def test_sidekiq_redis_takes_method_calls_and_pipelines
    Sidekiq.redis { |conn| conn.set("inside:k", "v") }
    assert_equal "v", Sidekiq.redis { |conn| conn.get("inside:k") }
    replies = Sidekiq.redis { |conn| conn.pipelined { |pipe| [pipe.incr("inside:n"), pipe.incr("inside:n")] } }
    assert_equal [1, 2], replies
  end

  def test_queue_api
    jids = [1, 2, 3].map { |n| DropInHardJob.perform_async(n) }
    queue = Sidekiq::Queue.new("low")
    assert_equal 3, queue.size
    assert_includes 0.0..60.0, queue.latency
    assert_equal jids.reverse, queue.map(&:jid), "newest first, as Sidekiq's Queue#each"
    entry = queue.find_job(jids[1])
    assert_equal [2], entry.args
    assert_equal "DropInHardJob", entry.klass
    assert_equal "low", entry["queue"]
    assert entry.delete
    assert_equal 2, queue.size
    assert_equal ["low"], Sidekiq::Queue.all.map(&:name)
    queue.pause!
    assert Sidekiq::Queue.new("low").paused?
    queue.unpause!
    refute Sidekiq::Queue.new("low").paused?
    queue.clear
    assert_equal 0, Sidekiq::Queue.new("low").size
  end

  def test_scheduled_retry_and_dead_sets
    jid = DropInHardJob.perform_in(300, 1)
    scheduled = Sidekiq::ScheduledSet.new
    assert_equal 1, scheduled.size
    assert_equal [jid], scheduled.map(&:jid)
    assert_in_delta Time.now.to_f + 300, scheduled.find_job(jid).at.to_f, 60
    assert scheduled.find_job(jid).delete
    assert_equal 0, scheduled.size

    failed = {"class" => "DropInHardJob", "args" => [9], "jid" => "a" * 24, "queue" => "low", "retry" => true,
              "retry_count" => 1, "error_class" => "RuntimeError", "error_message" => "boom", "failed_at" => Time.now.to_f}
    redis("ZADD", "retry", Time.now.to_f + 60, JSON.generate(failed))
    retries = Sidekiq::RetrySet.new
    assert_equal 1, retries.size
    entry = retries.find_job("a" * 24)
    assert_equal "RuntimeError", entry.error_class
    assert_equal 1, retries.scan("boom").to_a.size
    assert entry.kill
    assert_equal 0, retries.size
    dead = Sidekiq::DeadSet.new
    assert_equal ["a" * 24], dead.map(&:jid)
    assert dead.find_job("a" * 24).retry
    assert_equal 0, dead.size
    assert_equal ["a" * 24], Sidekiq::Queue.new("low").map(&:jid)
  end

  def test_stats_history_and_process_set
    DropInHardJob.perform_async(1)
    redis("INCRBY", "stat:processed", 5)
    stats = Sidekiq::Stats.new
    assert_equal [5, 0, 1], [stats.processed, stats.failed, stats.enqueued]
    assert_equal({"low" => 1}, stats.queues)
    assert_equal [0, 0, 0, 0], [stats.scheduled_size, stats.retry_size, stats.dead_size, stats.processes_size]
    assert_equal 3, Sidekiq::Stats::History.new(3).processed.size
    assert_equal 0, Sidekiq::ProcessSet.new.size

    info = {"hostname" => "web1", "pid" => 12, "concurrency" => 5, "queues" => ["low"], "tag" => "app", "version" => "7.3.10"}
    redis("SADD", "processes", "web1:12:abc")
    redis("HSET", "web1:12:abc", "info", JSON.generate(info), "busy", 2, "beat", Time.now.to_f, "quiet", "false", "rss", 1000)
    processes = Sidekiq::ProcessSet.new
    assert_equal 1, processes.size
    process = processes.first
    assert_equal ["web1:12:abc", "web1", 2, ["low"], "app"], [process.identity, process["hostname"], process["busy"], process.queues, process.tag]
    assert_equal 5, processes.total_concurrency
    process.quiet!
    assert_equal "TSTP", redis("LINDEX", "web1:12:abc-signals", 0)
  end

  def test_sidekiq_web_is_deckhands_dashboard_and_takes_rack_middleware
    page = Rack::MockRequest.new(Sidekiq::Web).get("/")
    assert_equal 200, page.status
    assert_includes page.body, "Deckhand"
    Sidekiq::Web.use(Rack::Auth::Basic) { |user, password| user == "ops" && password == "secret" }
    assert_equal 401, Rack::MockRequest.new(Sidekiq::Web).get("/queues").status
    authorized = Rack::MockRequest.new(Sidekiq::Web).get("/queues", "HTTP_AUTHORIZATION" => "Basic #{["ops:secret"].pack("m0")}")
    assert_equal 200, authorized.status
    assert_same Sidekiq::Web, Sidekiq::Web.settings
    Sidekiq::Web.middlewares.clear

    shard = Sidekiq::RedisConnection.create(url: ENV.fetch("REDIS_URL").sub(%r{/\d*\z}, "/2"))
    Sidekiq::Client.via(shard) { Sidekiq::Client.push("class" => "ShardOnly", "args" => [], "queue" => "shard_only") }
    Sidekiq::Web.redis_pool = shard
    assert_same shard, Sidekiq::Web.redis_pool
    assert_includes Rack::MockRequest.new(Sidekiq::Web).get("/queues").body, "shard_only"
    Sidekiq::Web.redis_pool = nil
    refute_includes Rack::MockRequest.new(Sidekiq::Web).get("/queues").body, "shard_only"
  ensure
    Sidekiq::Web.middlewares.clear
    Sidekiq::Web.redis_pool = nil
  end

  def test_sidekiq_batch_is_deckhands_batch
    batch = Sidekiq::Batch.new
    batch.description = "inside"
    batch.on(:success, "InsideCallbacks", "n" => 1)
    jids = batch.jobs { 2.times { |n| DropInHardJob.perform_async(n) } }
    assert_equal 2, jids.size
    assert_equal [batch.bid] * 2, Sidekiq::Queue.new("low").map { |job| job["bid"] }
    status = Sidekiq::Batch::Status.new(batch.bid)
    assert_equal [2, "inside"], [status.total, status.description]
  end
end
