# frozen_string_literal: true

require "test_helper"
require "stringio"
require "support/private_redis"
require "support/cli_process"

# The eviction watch against real redis-servers that may evict: private ones
# started with `maxmemory-policy allkeys-lru` and a small maxmemory, one of
# them with CONFIG renamed away as managed services do. A server warns at
# boot and again while the danger lasts (the looks' cadence driven down by
# eviction_check_interval), says when it ends, sees keys evicted and memory
# nearly full, and refuses to start with refuse_evicting_redis.
class EvictionWatchTest < Minitest::Test
  LRU = %w[--maxmemory 4mb --maxmemory-policy allkeys-lru].freeze

  def setup
    super
    @log = StringIO.new
    @admins = {}
  end

  def teardown
    @admins.each_value(&:close)
    super
  end

  def server(name, extra = LRU) = Deckhand::PrivateRedis.server(name, extra: extra)

  # The test's own connection to a private server.
  def admin(server) = @admins[server.url] ||= RedisClient.new(url: server.url, timeout: Deckhand::RedisHarness::TIMEOUT)

  # A configuration on a private server (emptied first: only this test's
  # data is on it) that logs to @log and looks at Redis every 0.1 s.
  def config_on(server, **settings)
    admin(server).call("FLUSHALL")
    config = Deckhand::Config.new(redis: {url: server.url, timeout: Deckhand::RedisHarness::TIMEOUT}, heartbeat_interval: 0.05,
      eviction_check_interval: 0.1, timeout: 1, **settings)
    config.logger = Logger.new(@log)
    config
  end

  def lines(pattern) = @log.string.lines.grep(pattern)

  def test_an_evicting_policy_is_warned_at_boot_again_while_it_lasts_and_when_it_ends
    lru = server(:lru)
    with_server(config_on(lru)) do |launcher|
      boot = lines(/WARN.*maxmemory-policy allkeys-lru/)
      assert_equal 1, boot.size, "warned once as the server started: #{@log.string}"
      assert_includes boot.first, "Redis at #{lru.url} has maxmemory-policy allkeys-lru"
      assert_includes boot.first, "whole queues of jobs among them"
      assert_includes boot.first, "CONFIG SET maxmemory-policy noeviction"
      assert_includes boot.first, "parameter group"
      wait_for(message: "the warning again while it lasts") { lines(/WARN.*maxmemory-policy allkeys-lru/).size >= 2 }
      assert_equal [:policy], launcher.eviction_watch.look.concerns.map(&:kind)
      admin(lru).call("CONFIG", "SET", "maxmemory-policy", "noeviction")
      wait_for(message: "the end of the warning") { lines(/INFO.*maxmemory-policy noeviction now: it evicts none/).any? }
      wait_for(message: "a look without the concern") { launcher.eviction_watch.look.concerns.empty? }
      warned = lines(/WARN.*maxmemory-policy/).size
      sleep 0.5 # five looks: the warning does not come back
      assert_equal warned, lines(/WARN.*maxmemory-policy/).size
    end
  ensure
    admin(lru).call("CONFIG", "SET", "maxmemory-policy", "allkeys-lru")
  end

  def test_a_volatile_policy_is_dangerous_too_and_says_why
    lru = server(:lru)
    admin(lru).call("CONFIG", "SET", "maxmemory-policy", "volatile-lru")
    with_server(config_on(lru)) do
      warning = lines(/WARN.*maxmemory-policy volatile-lru/).first
      assert warning, @log.string
      assert_includes warning, "Deckhand's process records, locks and leases have one"
      assert_includes warning, "looks dead"
    end
  ensure
    admin(lru).call("CONFIG", "SET", "maxmemory-policy", "allkeys-lru")
  end

  # What was found on main: pushes that all returned, and most of their
  # jobs gone. The watch sees the evictions at its next look.
  def test_evicted_queues_are_seen_at_the_next_look
    full = server(:lru_filled)
    config = config_on(full)
    with_server(config) do |launcher|
      client = Deckhand::Client.new(config: config)
      30.times { |n| client.push_bulk("class" => "RecordJob", "args" => Array.new(1000) { |i| [i, "x" * 40] }, "queue" => "bulk#{n}") }
      queued = admin(full).call("KEYS", "queue:bulk*").sum { |key| admin(full).call("LLEN", key) }
      assert_operator queued, :<, 30_000, "allkeys-lru evicted whole queues of acknowledged jobs"
      line = wait_for(message: "the evictions in the log") { lines(/ERROR.*evicted \d+ keys? since the last look/).first }
      assert_includes line, "INFO stats evicted_keys"
      assert_includes line, "queued jobs are lost"
      assert(launcher.eviction_watch.look.nodes.first.evicted.positive?)
    end
  end

  def test_with_config_disabled_the_policy_is_read_from_info
    locked = server(:lru_config_renamed, [*LRU, "--rename-command", "CONFIG", ""])
    assert_raises(RedisClient::CommandError) { admin(locked).call("CONFIG", "GET", "maxmemory-policy") }
    with_server(config_on(locked)) do
      assert_equal 1, lines(/WARN.*Redis at #{Regexp.escape(locked.url)} has maxmemory-policy allkeys-lru/).size, @log.string
      wait_for(message: "the warning again while running") { lines(/WARN.*maxmemory-policy allkeys-lru/).size >= 2 }
    end
  end

  def test_memory_near_maxmemory_warns_then_louder_then_ends
    tight = server(:tight, [])
    conn = admin(tight)
    config = config_on(tight)
    conn.call("SETRANGE", "ballast", (8 << 20) - 1, "x") # so that connections coming and going barely move the share
    used = -> { Deckhand::Store::Connection::Info.parse(conn.call("INFO", "memory"))["used_memory"].to_i }
    with_server(config) do
      conn.call("CONFIG", "SET", "maxmemory", (used.call / 0.93).to_i.to_s)
      line = wait_for(message: "the 90% warning") { lines(/WARN.*is 9\d% full/).first }
      assert_includes line, "it refuses writes: pushes raise"
      assert_includes line, "trim the dead and retry sets"
      conn.call("CONFIG", "SET", "maxmemory", (used.call / 0.99).to_i.to_s)
      line = wait_for(message: "the louder warning") { lines(/ERROR.*is (9[89]|1\d\d)% full/).first }
      assert_includes line, "raise maxmemory"
      conn.call("CONFIG", "SET", "maxmemory", "0")
      wait_for(message: "the end of it") { lines(/INFO.*under 90% of maxmemory again/).any? }
    end
  ensure
    conn&.call("CONFIG", "SET", "maxmemory", "0")
  end

  def test_refuse_evicting_redis_refuses_the_boot_naming_the_policy_and_the_fix
    [server(:lru), server(:lru_config_renamed, [*LRU, "--rename-command", "CONFIG", ""])].each do |lru|
      launcher = Deckhand::Server::Launcher.new(config_on(lru, refuse_evicting_redis: true).freeze!, on_signal: ->(_) {})
      error = assert_raises(Deckhand::ConfigError) { launcher.start }
      assert_includes error.message, "Redis at #{lru.url} has maxmemory-policy allkeys-lru"
      assert_includes error.message, "`CONFIG SET maxmemory-policy noeviction`"
      assert_includes error.message, "parameter group"
      assert_includes error.message, "set refuse_evicting_redis to false"
      assert_equal 0, admin(lru).call("SCARD", "processes"), "nothing started"
    end
    tight = server(:tight, [])
    with_server(config_on(tight, refuse_evicting_redis: true)) { |launcher| assert launcher.heartbeat.running? }
  end

  def test_the_command_refuses_before_it_forks_with_the_setting_in_its_config_file
    skip_on_jruby("the swarm (-P) forks, which JRuby cannot")
    lru = server(:lru)
    Dir.mktmpdir("deckhand-refuse") do |dir|
      File.write(File.join(dir, "deckhand.yml"), "refuse_evicting_redis: true\n")
      cli = Deckhand::CliProcess.start("-C", File.join(dir, "deckhand.yml"), "-P", "2", env: {"REDIS_URL" => lru.url})
      begin
        assert_equal 1, cli.wait_exit(timeout: 60).exitstatus
        assert_includes cli.output, "has maxmemory-policy allkeys-lru"
        assert_includes cli.output, "CONFIG SET maxmemory-policy noeviction"
        refute_match(/worker|started as/, cli.output)
      ensure
        cli.kill
      end
    end
  end

  def test_settings_are_checked_where_they_are_set
    error = assert_raises(Deckhand::ConfigError) { new_config(refuse_evicting_redis: "yes") }
    assert_includes error.message, "refuse_evicting_redis must be true"
    error = assert_raises(Deckhand::ConfigError) { new_config(eviction_check_interval: 0) }
    assert_includes error.message, "eviction_check_interval must be a number from 0.05 to 3600"
    assert_equal [false, 30], new_config.then { |c| [c.refuse_evicting_redis, c.eviction_check_interval] }
  end
end
