# frozen_string_literal: true

require "test_helper"
require "net/http"
require "socket"
require "support/private_redis"
require "support/prometheus_parser"

# What a server shows its operators when Redis may evict its keys, on a
# private redis-server with `maxmemory-policy allkeys-lru`, a small
# maxmemory and CONFIG renamed away (as on managed services): the warning on
# /ready (which stays 200), gauges on its /metrics, StatsD gauges; and
# nothing of it on a Redis that cannot evict.
class EvictionSignalsTest < Minitest::Test
  Parser = Deckhand::PrometheusParser

  def setup
    super
    @agent = UDPSocket.new
    @agent.bind("127.0.0.1", 0)
    @received = []
  end

  def teardown
    @agent.close
    super
  end

  def lru = Deckhand::PrivateRedis.server(:lru_config_renamed,
    extra: %w[--maxmemory 4mb --maxmemory-policy allkeys-lru --rename-command CONFIG] + [""])

  def config_on(url)
    Deckhand::Config.new(redis: {url: url, timeout: Deckhand::RedisHarness::TIMEOUT}, heartbeat_interval: 0.05,
      eviction_check_interval: 0.1, timeout: 1, metrics_port: 0, health_check: "127.0.0.1:0",
      statsd: {port: @agent.addr[1], tags: ["env:test"]}).tap { |config| config.logger = Deckhand::TestHelpers::QUIET_LOGGER }
  end

  def get(port, path)
    response = Net::HTTP.get_response(URI("http://127.0.0.1:#{port}#{path}"))
    [response.code.to_i, response.body]
  end

  def statsd_lines
    while (packet = @agent.recv_nonblock(65_536, exception: false)) != :wait_readable
      @received.concat(packet.split("\n"))
    end
    @received
  end

  def test_an_evicting_redis_shows_on_ready_metrics_and_statsd
    url = lru.url
    with_server(config_on(url)) do |launcher|
      health = launcher.operations.health_listener.port
      status, body = get(health, "/ready")
      assert_equal 200, status, "a warning does not make the process unready"
      assert_equal "ok", body.lines.first.chomp
      assert_match(/\Awarning: Redis at #{Regexp.escape(url)} has maxmemory-policy allkeys-lru \(.*maxmemory 4\.0 MB.*\): /, body.lines[1])
      assert_includes body, "CONFIG SET maxmemory-policy noeviction"
      assert_equal [200, "ok\n"], get(health, "/live")

      _, text = get(launcher.operations.metrics_listener.port, "/metrics")
      families = Parser.parse(text)
      assert_equal 1, families.fetch("deckhand_redis_eviction_warnings").value
      assert_equal 1, families.fetch("deckhand_redis_evicting_policy").value({"redis" => url, "policy" => "allkeys-lru"})
      ratio = families.fetch("deckhand_redis_memory_used_ratio").value({"redis" => url})
      assert_operator ratio, :>, 0
      assert_operator ratio, :<, 1
      evicted = families.fetch("deckhand_redis_evicted_keys_total")
      assert_equal "counter", evicted.type
      assert_equal 0, evicted.value({"redis" => url})

      tagged = "|#env:test,redis:127.0.0.1_#{lru.port}/0"
      wait_for(message: "the look in a StatsD datagram") { statsd_lines.include?("redis.eviction_warnings:1|g|#env:test") }
      assert_includes statsd_lines, "redis.evicting_policy:1|g#{tagged},policy:allkeys-lru"
      assert(statsd_lines.any? { |line| line.match?(/\Aredis\.memory_used_ratio:0\.\d+\|g#{Regexp.escape(tagged)}\z/) }, statsd_lines.inspect)
      wait_for(message: "a later look's evictions counter") { statsd_lines.include?("redis.evicted_keys:0|c#{tagged}") }
    end
  end

  def test_a_redis_that_cannot_evict_shows_nothing
    with_server(config_on(Deckhand::RedisHarness.url)) do |launcher|
      assert_equal [200, "ok\n"], get(launcher.operations.health_listener.port, "/ready")
      families = Parser.parse(get(launcher.operations.metrics_listener.port, "/metrics").last)
      assert_equal 0, families.fetch("deckhand_redis_eviction_warnings").value
      assert_equal 0, families.fetch("deckhand_redis_evicting_policy").value({"redis" => Deckhand::RedisHarness.url, "policy" => "noeviction"})
      assert_nil families.fetch("deckhand_redis_memory_used_ratio").value({"redis" => Deckhand::RedisHarness.url}), "no maxmemory, no ratio"
      wait_for(message: "the look in a StatsD datagram") { statsd_lines.include?("redis.eviction_warnings:0|g|#env:test") }
    end
  end
end
