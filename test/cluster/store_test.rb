# frozen_string_literal: true

require "test_helper"
require_relative "../support/cluster_helpers"

class ClusterStoreTest < Minitest::Test
  include Deckhand::ClusterHelpers

  def store = Deckhand.config.store

  def test_cluster_mode_names_keys_with_hash_tags
    assert_predicate store, :cluster?
    assert_kind_of Deckhand::Store::Layout::PlacedCluster, store.layout
    assert_equal "{queue:default}", store.layout.queue("default")
    assert_equal "{queue:default}:inflight:host:1:abc", store.layout.inflight("host:1:abc", "default")
    assert_equal "{queue:default}:retry", store.layout.retry_set("default")
    assert_equal "{deckhand}:processes", store.layout::PROCESSES
  end

  def test_every_key_of_a_queue_shares_one_slot
    keys = store.layout
    queue_keys = [keys.queue("mail"), keys.inflight("h:1:a", "mail"), keys.lot("h:1:a", "mail", 7),
      keys.landing("h:1:a", "mail"), keys.recoveries("mail"), keys.suspects("h:1:a", "mail"),
      keys.poison("mail"), keys.scheduled_set("mail"), keys.retry_set("mail"), keys.dead_set("mail")]
    slots = queue_keys.map { |key| cluster.call("CLUSTER", "KEYSLOT", key) }.uniq
    assert_equal 1, slots.size, "the keys of one queue hash to #{slots.inspect}"
  end

  def test_queues_spread_over_the_primaries
    nodes = %w[default mail reports critical low bulk billing search].map do |queue|
      Deckhand::RedisClusterHarness.cluster.primary_for(store.layout.queue(queue)).port
    end
    assert_operator nodes.uniq.size, :>, 1, "eight queues all landed on one primary"
  end

  def test_a_script_runs_across_a_queues_keys
    keys = store.layout
    store.call("LPUSH", keys.queue("mail"), "a")
    store.call("SADD", keys.recoveries("mail"), "x") # another key of the same slot
    assert_equal "OK", store.call("EVAL", "redis.call('LLEN', KEYS[1]); redis.call('TYPE', KEYS[2]); return 'OK'",
      2, keys.queue("mail"), keys.recoveries("mail"))
  end

  def test_a_plain_store_refuses_a_cluster_node
    plain = Deckhand::Store.new({url: Deckhand::RedisClusterHarness.urls.first})
    error = assert_raises(Deckhand::ConfigError) { plain.verify! }
    assert_match(/node of a Redis Cluster: turn on cluster mode/, error.message)
  ensure
    plain&.shutdown
  end

  def test_cluster_mode_refuses_a_plain_server
    store = Deckhand::Store.new({cluster: [Deckhand::RedisHarness.url]})
    error = assert_raises(Deckhand::ConfigError) { store.verify! }
    assert_match(/is a plain Redis server, not a Redis Cluster/, error.message)
  end

  def test_a_queue_name_with_braces_is_refused
    error = assert_raises(Deckhand::ConfigError) { store.layout.queue("a{b}") }
    assert_match(/cannot be used in cluster mode.*Rename the queue/, error.message)
  end

  def test_redis_url_listing_several_nodes_means_cluster_mode
    previous = ENV["REDIS_URL"]
    ENV["REDIS_URL"] = Deckhand::RedisClusterHarness.urls.first(2).join(",")
    assert_equal({cluster: Deckhand::RedisClusterHarness.urls.first(2)}, Deckhand.default_redis)
  ensure
    ENV["REDIS_URL"] = previous
  end

  def test_cluster_settings_are_checked_where_they_are_given
    error = assert_raises(Deckhand::ConfigError) { Deckhand::Config.new(redis: {cluster: true}) }
    assert_match(/cluster: true\} needs a node to start from/, error.message)
    error = assert_raises(Deckhand::ConfigError) { Deckhand::Config.new(redis: {cluster: ["10.0.0.1:7000"]}) }
    assert_match(/has no scheme/, error.message)
    store = Deckhand::Store.new({cluster: true, url: Deckhand::RedisClusterHarness.urls.first})
    assert_predicate store, :cluster?
    assert_equal "PONG", store.call("PING")
  ensure
    store&.shutdown
  end

  def test_the_location_never_shows_a_password
    store = Deckhand::Store.new({cluster: ["redis://:s3cret@127.0.0.1:7000"]})
    refute_includes store.location, "s3cret"
    assert_equal "redis-cluster://:***@127.0.0.1:7000", store.location
    refute_includes store.inspect, "s3cret"
    refute_includes Deckhand::Store.new({url: "redis://:s3cret@127.0.0.1:6379/0"}).inspect, "s3cret"
  end
end
