# frozen_string_literal: true

require "test_helper"
require "support/private_redis"
require "support/prometheus_parser"
require_relative "../../support/web/web_helpers"

# The dashboard's front page warns when Redis may evict jobs, read from INFO
# of a private redis-server with `maxmemory-policy allkeys-lru`, a small
# maxmemory and CONFIG renamed away, and its /metrics say so; and nothing
# is said on one that cannot evict.
class WebEvictionBannerTest < Minitest::Test
  include Deckhand::WebHelpers

  def lru = Deckhand::PrivateRedis.server(:lru_config_renamed,
    extra: %w[--maxmemory 4mb --maxmemory-policy allkeys-lru --rename-command CONFIG] + [""])

  def test_the_front_page_warns_of_an_evicting_policy
    config = Deckhand::Config.new(redis: {url: lru.url, timeout: Deckhand::RedisHarness::TIMEOUT})
    body = get("/", app: Deckhand::Web.new(config: config)).body
    banner = body[%r{<section class="unworked eviction" role="alert" id="eviction-warning">.*?</section>}m]
    assert banner, "the banner is on the page"
    assert_includes banner, "Redis at #{lru.url} has maxmemory-policy allkeys-lru"
    assert_includes banner, "whole queues of jobs among them"
    assert_includes banner, "<code>CONFIG SET maxmemory-policy noeviction</code>"
    assert_equal ["allkeys-lru"], Deckhand::API.new(config).eviction.primaries.map(&:policy)
  end

  def test_the_fleet_metrics_show_it_too
    config = Deckhand::Config.new(redis: {url: lru.url, timeout: Deckhand::RedisHarness::TIMEOUT})
    text = get("/metrics?format=prometheus", app: Deckhand::Web.new(config: config)).body
    families = Deckhand::PrometheusParser.parse(text)
    assert_equal 1, families.fetch("deckhand_redis_evicting_policy").value({"redis" => lru.url, "policy" => "allkeys-lru"})
    assert_operator families.fetch("deckhand_redis_memory_used_ratio").value({"redis" => lru.url}), :>, 0
    assert_equal 0, families.fetch("deckhand_redis_evicted_keys_total").value({"redis" => lru.url})
  end

  def test_no_banner_where_redis_cannot_evict
    refute_includes get("/").body, "eviction-warning"
    assert Deckhand::API.new(Deckhand.config).eviction.safe?
  end
end
