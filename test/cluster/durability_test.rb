# frozen_string_literal: true

require "test_helper"
require_relative "../support/cluster_helpers"

# push_replicas in cluster mode: the WAIT goes to the node that took the
# push (each harness primary has one replica), on the push's connection.
class ClusterDurabilityTest < Minitest::Test
  include Deckhand::ClusterHelpers

  def store = @store ||= Deckhand::Store.new({cluster: Deckhand::RedisClusterHarness.urls}).tap do |s|
    s.durability = Deckhand::Store::Durability.new(replicas: 1, timeout: 1.0)
  end

  def teardown
    @store&.shutdown
    super
  end

  def test_the_wait_runs_on_each_node_a_push_wrote_to_and_nowhere_else
    queues = spread_queues
    reset_stats
    replies = Deckhand::Store::Durability.pipelined(store) do |pipe|
      queues.each { |queue| pipe.call("LPUSH", keys.queue(queue), "job-#{queue}") }
    end
    assert_equal [1, 1], replies, "the WAIT replies are not the caller's"
    waited = primaries.to_h { |node| [node.port, stat(node, "wait")] }
    expected = queues.map { |queue| harness.primary_for(keys.queue(queue)).port }
    assert_equal expected.sort, waited.select { |_, calls| calls.positive? }.keys.sort
    assert_equal [1], waited.values.select(&:positive?).uniq
  end

  def test_more_replicas_than_a_shard_has_raise_with_the_job_in_its_primary
    store.durability = Deckhand::Store::Durability.new(replicas: 2, timeout: 0.05)
    error = assert_raises(Deckhand::NotReplicated) do
      Deckhand::Store::Durability.pipelined(store) { |pipe| pipe.call("LPUSH", keys.queue("mail"), "job") }
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
