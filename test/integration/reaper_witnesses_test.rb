# frozen_string_literal: true

require "test_helper"
require "support/reliability_helpers"

# The reaper's two witnesses: a silent heartbeat and no connection left in
# Redis. A process that only paused keeps its connections, and its jobs.
class ReaperWitnessesTest < Minitest::Test
  include Deckhand::ReliabilityHelpers

  IDENTITY = "paused:77:abc123"

  def setup
    super
    Deckhand.config = new_config(heartbeat_interval: 0.5, heartbeat_ttl: 30, reaper_interval: 0.1, hung_after: 120)
    @connections = []
    wait_for_redis_uptime(2)
  end

  def teardown
    @connections.each(&:close)
    super
  end

  # A connection as the process's own store names them.
  def connect_as(identity)
    conn = RedisClient.new(url: Deckhand::RedisHarness.url, id: Deckhand::Store::Connection::Clients.name_of(identity))
    conn.call("PING")
    @connections << conn
    conn
  end

  # One pass now, whoever held the reaper lock last.
  def reap(config = Deckhand.config)
    redis.call("DEL", Keys::REAPER_LOCK)
    reaper(config).reap
  end

  def beat(identity, seconds_ago)
    redis.call("HSET", identity, "beat", Time.now.to_f - seconds_ago)
    redis.call("EXPIRE", identity, 30)
  end

  def test_a_silent_process_with_no_connection_is_recovered_long_before_its_record_expires
    dead_process(IDENTITY, lots: {"default" => [[payload("a")]]})
    beat(IDENTITY, 2) # silent for 2 s, its record good for 30 more
    assert_equal 1, reap
    assert_equal %w[a], queue_jids("default")
  end

  def test_a_paused_process_keeps_its_jobs_while_its_connections_are_open
    dead_process(IDENTITY, lots: {"default" => [[payload("a")]]})
    conn = connect_as(IDENTITY)
    assert_equal 0, reap, "its record expired, but the process still holds a connection"
    beat(IDENTITY, 5)
    assert_equal 0, reap, "a silent heartbeat alone is not death"
    assert_equal 1, inflight_count(IDENTITY)

    conn.close
    wait_for(message: "Redis to drop the connection") { !redis.call("CLIENT", "LIST").include?("name=deckhand:#{IDENTITY}") }
    assert_equal 1, reap
    assert_equal %w[a], queue_jids("default")
  end

  def test_a_process_silent_past_hung_after_is_recovered_even_with_connections
    dead_process(IDENTITY, lots: {"default" => [[payload("a")]]})
    connect_as(IDENTITY)
    beat(IDENTITY, 121)
    assert_equal 1, reap
  end

  def test_a_process_that_beats_again_between_the_judgment_and_the_recovery_keeps_its_jobs
    dead_process(IDENTITY, lots: {"default" => [[payload("a")]]})
    beat(IDENTITY, 2)
    judged = redis.call("HGET", IDENTITY, "beat")
    beat(IDENTITY, 0)
    reply = Deckhand::Store::Scripts::Recover.new(Deckhand.config.store).call(identity: IDENTITY, beat: judged,
      queues: ["default"], limit: 3, ttl: 60)
    assert_equal [-1, 0, 0], reply
    assert_equal 1, inflight_count(IDENTITY)
  end

  def test_a_reaper_whose_own_beats_failed_lately_judges_no_one
    dead_process(IDENTITY, lots: {"default" => [[payload("a")]]})
    beat(IDENTITY, 2)
    steady = 1.0 # seconds since this reaper's own heartbeat last failed; 3 intervals are 1.5 s
    reaper = Deckhand::Server::Recovery::Reaper.new(config: Deckhand.config, store: Deckhand.config.store, identity: "reaper:2:abc",
      steady_for: -> { steady })
    redis.call("DEL", Keys::REAPER_LOCK)
    assert_equal 0, reaper.reap, "a stall or cut may have silenced everyone: no judgment yet"
    assert_equal 1, inflight_count(IDENTITY)
    steady = 1.6
    redis.call("DEL", Keys::REAPER_LOCK)
    assert_equal 1, reaper.reap
    assert_equal %w[a], queue_jids("default")
  end

  def test_a_failed_beat_restarts_the_heartbeat_s_steady_time
    store = Deckhand::Store.new({url: "redis://127.0.0.1:1/0", connect_timeout: 0.1})
    heartbeat = Deckhand::Server::Chores::Heartbeat.new(config: Deckhand.config, store: store, identity: IDENTITY,
      stats: Deckhand::Server::Chores::Activity.new, info: {}, on_signal: ->(_) {})
    assert_equal Float::INFINITY, heartbeat.steady_for, "no beat has failed"
    heartbeat.beat
    assert_operator heartbeat.steady_for, :<, 1
  end

  def test_without_client_list_the_heartbeat_ttl_decides_and_the_log_says_so
    redis.call("ACL", "SETUSER", "reaper-test", "on", ">secret", "~*", "&*", "+@all", "-client")
    log = StringIO.new
    config = new_config(redis: {url: Deckhand::RedisHarness.url, username: "reaper-test", password: "secret"},
      heartbeat_interval: 0.5, heartbeat_ttl: 2, reaper_interval: 0.1)
    config.logger = Logger.new(log)
    dead_process(IDENTITY, lots: {"default" => [[payload("a")]]})
    beat(IDENTITY, 5)
    assert_equal 0, reap(config), "without CLIENT LIST a silent process keeps its jobs until its record expires"
    assert_includes log.string, "Redis refuses CLIENT LIST"
    redis.call("DEL", IDENTITY)
    assert_equal 1, reap(config)
  ensure
    redis.call("ACL", "DELUSER", "reaper-test")
  end
end
