# frozen_string_literal: true

require "test_helper"
require_relative "../support/cluster_helpers"

# Rate limiters in cluster mode: each limiter's keys share the tag
# {limit:<name>}, so its check is one script in one slot, and the index of
# names the dashboard lists ({deckhand}:limits) is written apart.
class ClusterLimiterTest < Minitest::Test
  include Deckhand::ClusterHelpers

  Limiter = Deckhand::Limiter

  def store = Deckhand.config.store

  def slot(key) = cluster.call("CLUSTER", "KEYSLOT", key)

  def metrics(name) = cluster.call("HGETALL", keys.limit_metrics(name))

  def test_each_limiters_keys_share_a_slot_and_limiters_spread
    keys_of = ->(name) { [keys.limit("concurrent", name), keys.limit_wake(name), keys.limit_metrics(name), keys.limit("window", name)] }
    %w[stripe erp a}b].each { |name| assert_equal 1, keys_of.call(name).map { |key| slot(key) }.uniq.size, name }
    primaries = %w[stripe erp search github shopify].map do |name|
      Deckhand::RedisClusterHarness.cluster.primary_for(keys.limit_metrics(name)).port
    end
    assert_operator primaries.uniq.size, :>, 1, "five limiters all landed on one primary"
    assert_equal "deckhand:limit:bucket:erp", Deckhand::Store::Layout::Plain.limit("bucket", "erp"), "plain mode keeps its names"
  end

  def test_window_bucket_and_leaky_refuse_over_their_size
    [Limiter.window("search", 2, :minute), Limiter.bucket("erp", 2, :hour), Limiter.leaky("github", 2, :hour)].each do |limiter|
      2.times { assert_equal :ran, limiter.within_limit { :ran } }
      error = assert_raises(Limiter::OverLimit, limiter.kind) { limiter.within_limit { flunk "#{limiter.kind} ran over its limit" } }
      assert_operator error.retry_after, :>, 0
      assert_equal({"type" => limiter.kind, "held" => "2", "over" => "1"}, metrics(limiter.name).slice("type", "held", "over"))
      assert_operator cluster.call("PTTL", keys.limit(limiter.kind, limiter.name)), :>, 0, "its state expires"
    end
  end

  def test_points_spend_an_estimate_and_give_back_the_difference
    limiter = Limiter.points("shopify", 100, refill: 1, per: :hour)
    limiter.within_limit(estimate: 60) { |handle| handle.points_used(10) } # 50 points back
    limiter.within_limit(estimate: 90) { nil }
    assert_raises(Limiter::OverLimit) { limiter.within_limit(estimate: 10) { flunk "over budget" } }
    assert_equal "points", metrics("shopify")["type"]
  end

  def test_concurrent_blocks_until_a_release_then_takes_the_slot
    limiter = Limiter.concurrent("stripe", 1, wait_timeout: 10, lock_timeout: 30)
    inside = Queue.new
    leave = Queue.new
    holder = Thread.new do
      limiter.within_limit do
        inside << true
        leave.pop
      end
    end
    inside.pop
    assert_equal 1, Deckhand::Store::Limits.holders(store, "stripe")
    waiter = Thread.new { limiter.within_limit { :second } }
    wait_for(message: "the second caller blocked on the wake list") { blocked_on_wake?("stripe") }
    leave << true
    assert_equal :second, waiter.value, "the release woke the waiter (BLPOP on the wake list)"
    holder.join
    assert_equal 0, Deckhand::Store::Limits.holders(store, "stripe")
    assert_equal "2", metrics("stripe")["held"]
  ensure
    leave << true
    [holder, waiter].compact.each { |t| t.join(5) }
  end

  # A client of the node holding the limiter's wake list waits in BLPOP.
  def blocked_on_wake?(name)
    node = Deckhand::RedisClusterHarness.cluster.primary_for(keys.limit_wake(name))
    client = RedisClient.new(url: node.url)
    client.call("CLIENT", "LIST").include?("cmd=blpop")
  ensure
    client&.close
  end

  def test_the_dashboard_lists_limiters_from_every_shard
    %w[stripe erp search].each { |name| Limiter.window(name, 5, :minute).within_limit { nil } }
    Limiter.window("stripe", 5, :minute).within_limit { nil } # not due in the index again within the minute
    rows = Deckhand::Store::Limits.list(store)
    assert_equal %w[erp search stripe], rows.map { |row| row["name"] }.sort
    assert_equal %w[2 1 1], %w[stripe erp search].map { |name| rows.find { |row| row["name"] == name }["held"] }
    refute rows.any? { |row| row.key?(Deckhand::Store::Limits::INDEXED) }, "the index's bookkeeping is no metric"
    assert_equal ["search"], Deckhand::Store::Limits.list(store, filter: "sea").map { |row| row["name"] }
    assert_equal 3, cluster.call("ZCARD", keys::LIMITS)
  end
end
