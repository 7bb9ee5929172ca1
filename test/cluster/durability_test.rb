# frozen_string_literal: true

require "test_helper"
require "deckhand/batch"
require_relative "../support/cluster_helpers"

# push_replicas in cluster mode: the WAIT goes to the node that took the
# push (each harness primary has one replica), on the push's connection.
class ClusterDurabilityTest < Minitest::Test
  include Deckhand::ClusterHelpers

  def store = @store ||= Deckhand::Store.new({cluster: Deckhand::RedisClusterHarness.urls}).tap do |s|
    s.durability = Deckhand::Store::Connection::Durability.new(replicas: 1, timeout: 1.0)
  end

  def teardown
    @store&.shutdown
    super
  end

  def test_the_wait_runs_on_each_node_a_push_wrote_to_and_nowhere_else
    queues = spread_queues
    reset_stats
    replies = Deckhand::Store::Connection::Durability.pipelined(store) do |pipe|
      queues.each { |queue| pipe.call("LPUSH", keys.queue(queue), "job-#{queue}") }
    end
    assert_equal [1, 1], replies, "the WAIT replies are not the caller's"
    waited = primaries.to_h { |node| [node.port, stat(node, "wait")] }
    expected = queues.map { |queue| harness.primary_for(keys.queue(queue)).port }
    assert_equal expected.sort, waited.select { |_, calls| calls.positive? }.keys.sort
    assert_equal [1], waited.values.select(&:positive?).uniq
  end

  def test_more_replicas_than_a_shard_has_raise_with_the_job_in_its_primary
    store.durability = Deckhand::Store::Connection::Durability.new(replicas: 2, timeout: 0.05)
    error = assert_raises(Deckhand::NotReplicated) do
      Deckhand::Store::Connection::Durability.pipelined(store) { |pipe| pipe.call("LPUSH", keys.queue("mail"), "job") }
    end
    assert_equal [1, 2], [error.acknowledged, error.wanted]
    assert_equal ["job"], cluster.call("LRANGE", keys.queue("mail"), 0, -1)
  end

  def test_a_client_push_waits_in_cluster_mode
    Deckhand.config = new_config(push_replicas: 1)
    reset_stats
    assert_kind_of String, Deckhand::Client.push("class" => "DurableJob", "args" => [1], "queue" => "mail")
    assert_operator primaries.sum { |node| stat(node, "wait") }, :>=, 1, "the push did not WAIT"
    Deckhand.config = new_config(push_replicas: 2, push_replicas_timeout: 0.05)
    assert_raises(Deckhand::NotReplicated) { Deckhand::Client.push("class" => "DurableJob", "args" => [2], "queue" => "mail") }
  end

  class UniqueDurableJob
    include Deckhand::Job

    deckhand_options unique_for: 600

    def perform(*) = nil
  end

  class DurableBatchJob
    include Deckhand::Job

    def perform(*) = nil
  end

  SHORT = {push_replicas: 2, push_replicas_timeout: 0.2}.freeze

  # unique_push.lua runs on the queue's node: its WAIT goes there, on the
  # script's connection, and nowhere else.
  def test_a_unique_push_waits_on_the_node_that_ran_its_script
    Deckhand.config = new_config(push_replicas: 1)
    warm = UniqueDurableJob.set(queue: "mail").perform_async(0) # its script cached, whatever test flushed it
    reset_stats
    jid = UniqueDurableJob.set(queue: "mail").perform_async(1)
    node = harness.primary_for(keys.queue("mail"))
    assert_equal({node.port => 1}, primaries.to_h { |n| [n.port, stat(n, "wait")] }.select { |_, calls| calls.positive? })
    assert_equal [jid, warm], jobs_in("mail").map { |job| job["jid"] }
  end

  def test_a_unique_push_short_of_replicas_raises_naming_its_job
    Deckhand.config = new_config(**SHORT)
    error = assert_raises(Deckhand::NotReplicated) { UniqueDurableJob.set(queue: "mail").perform_async(1) }
    assert_equal 1, error.jids.size
    assert_equal error.jids, jobs_in("mail").map { |job| job["jid"] }
    assert_nil UniqueDurableJob.set(queue: "mail").perform_async(1), "a duplicate pushes nothing and raises nothing"
  end

  # The node lost the script: the source goes again, a WAIT behind it.
  def test_a_unique_push_after_its_node_flushed_the_script_cache_still_waits
    Deckhand.config = new_config(push_replicas: 1)
    node = harness.primary_for(keys.queue("mail"))
    node_call(node, "SCRIPT", "FLUSH")
    reset_stats
    refute_nil UniqueDurableJob.set(queue: "mail").perform_async(1)
    assert_equal 2, stat(node, "wait"), "one WAIT behind the refused EVALSHA, one behind the EVAL"
  end

  def test_a_batch_short_of_replicas_raises_and_is_let_go
    Deckhand.config = new_config(**SHORT)
    Deckhand::Batch.install(Deckhand.config)
    batch = Deckhand::Batch.new
    jids = nil
    error = assert_raises(Deckhand::NotReplicated) do
      batch.jobs { jids = %w[default mail reports].map { |queue| DurableBatchJob.set(queue: queue).perform_async(1) } }
    end
    assert_equal jids.sort, error.jids.sort
    assert_equal jids.sort, %w[default mail reports].flat_map { |queue| jobs_in(queue) }.map { |job| job["jid"] }.sort
    assert_equal "0", cluster.call("HGET", Deckhand::Store::Layout::ClusterBatches.batch(batch.bid), "hold")
  end

  # periodic_push.lua runs on the queue's node; a push short of replicas
  # is in its queue, its record cleared: nobody pushes it again.
  def test_a_periodic_tick_short_of_replicas_raises_and_is_not_pushed_again
    store.durability = Deckhand::Store::Connection::Durability.new(replicas: 2, timeout: 0.2)
    scripts = Deckhand::Store::Scripts
    _, token = scripts::PeriodicLease.new(store).acquire("a", ttl_ms: 5_000)
    tick = lambda do |at|
      scripts::PeriodicEnqueue.new(store).call(token: token, name: "e", tick: at, next_tick: at + 2, queue: "reports",
        jid: "j#{at}", payload: JSON.generate({"class" => "X", "args" => [], "jid" => "j#{at}"}), now: 100)
    end
    assert_equal :done, tick.call(50)
    error = assert_raises(Deckhand::NotReplicated) { tick.call(102) }
    assert_equal ["j102"], error.jids
    assert_nil cluster.call("HGET", keys.periodic("e"), "pending_jid"), "the pushed tick's record is cleared"
    assert_equal :done, tick.call(102)
    assert_equal 0, Deckhand::Store::Features::PeriodicTicks.complete(store)
    assert_equal ["j102"], jobs_in("reports").map { |job| job["jid"] }
  end

  private

  def harness = Deckhand::RedisClusterHarness.cluster

  def primaries = harness.primaries

  # Two queues on two different primaries.
  def spread_queues
    by_node = %w[default mail reports critical low bulk].group_by { |q| harness.primary_for(keys.queue(q)).port }
    by_node.values.first(2).map(&:first)
  end

  def reset_stats = primaries.each { |node| node_call(node, "CONFIG", "RESETSTAT") }

  def stat(node, command) = node_call(node, "INFO", "commandstats")[/cmdstat_#{command}:calls=(\d+)/, 1].to_i
end
