# frozen_string_literal: true

require "test_helper"
require "securerandom"
require_relative "../support/cluster_helpers"

# A primary of the cluster is SIGKILLed while pushes stream to a queue it
# serves; its replica takes over. With push_replicas on, a push that
# returned was on the replica before it returned, so it is in the new
# primary. While the new primary has no replica, pushes raise NotReplicated
# (their jobs are in it all the same); once the old node is back, as its
# replica, pushes return again.
class ClusterFailoverTest < Minitest::Test
  include Deckhand::ClusterHelpers

  QUEUE = "mail"

  def test_every_acknowledged_push_survives_the_failover_of_its_primary
    store = Deckhand::Store.new({cluster: Deckhand::RedisClusterHarness.urls}, size: 2)
    store.durability = Deckhand::Store::Connection::Durability.new(replicas: 1, timeout: 0.5)
    key = store.layout.queue(QUEUE)
    victim = harness.primary_for(key)
    pusher = Pusher.new(store, key).start
    wait_for(message: "pushes acknowledged before the kill") { pusher.acked.size >= 50 }
    harness.kill(victim)
    harness.wait_until_healthy
    refute_equal victim.port, harness.primary_for(key).port, "no failover"
    wait_for(message: "a push to the new primary, alone") { pusher.unreplicated.any? }
    victim.start # back as the new primary's replica
    before = pusher.acked.size
    wait_for(timeout: 60, message: "pushes acknowledged again") { pusher.acked.size >= before + 50 }
    pusher.stop
    present = wait_for(message: "the queue readable after the failover") { read(key) }
    lost = pusher.acked - present
    assert_empty lost, "#{lost.size} of #{pusher.acked.size} acknowledged pushes are gone after the failover"
    assert_empty pusher.unreplicated - present, "a push that raised NotReplicated is not in the primary"
  ensure
    pusher&.stop
    store&.shutdown
    Deckhand::RedisClusterHarness.restart
  end

  # A client that still sends a queue's writes to the old primary, a
  # replica now: the write is redirected to the new primary, the WAIT behind
  # it fails on the replica, so the push raises NotReplicated with its job
  # in the new primary; the next push goes there and is acknowledged.
  def test_a_push_to_a_primary_turned_replica_lands_in_the_new_primary
    store = Deckhand::Store.new({cluster: Deckhand::RedisClusterHarness.urls}, size: 1)
    store.durability = Deckhand::Store::Connection::Durability.new(replicas: 1, timeout: 0.5)
    key = store.layout.queue(QUEUE)
    push(store, key, "before")
    old = harness.primary_for(key)
    replica = harness.nodes.find { |node| node_call(node, "INFO", "replication").include?("master_port:#{old.port}") }
    node_call(replica, "CLUSTER", "FAILOVER")
    wait_for(message: "the replica promoted, the old primary its replica") do
      node_call(replica, "ROLE").first == "master" && node_call(old, "INFO", "replication").include?("master_link_status:up")
    end
    error = assert_raises(Deckhand::NotReplicated) { push(store, key, "during") }
    assert_match(/WAIT failed: .*replica/, error.message)
    push(store, key, "after")
    assert_equal %w[before during after], node_call(replica, "LRANGE", key, 0, -1).reverse
  ensure
    store&.shutdown
  end

  # Pushes one job at a time to `key` until stopped, through the durable
  # pipeline a push uses: the jids of the pushes that returned, and of
  # those that raised NotReplicated.
  class Pusher
    attr_reader :acked, :unreplicated

    def initialize(store, key)
      @store = store
      @key = key
      @acked = []
      @unreplicated = []
      @running = true
    end

    def start
      @thread = Thread.new do
        push(SecureRandom.hex(12)) while @running
      end
      self
    end

    def stop
      @running = false
      @thread&.join
    end

    private

    def push(jid)
      Deckhand::Store::Connection::Durability.pipelined(@store) { |pipe| pipe.call("LPUSH", @key, jid) }
      @acked << jid
    rescue Deckhand::NotReplicated
      @unreplicated << jid
    rescue Deckhand::RedisError
      sleep 0.01 # not acknowledged: the caller knows it may not have happened
    end
  end

  private

  def harness = Deckhand::RedisClusterHarness.cluster

  def push(store, key, value) = Deckhand::Store::Connection::Durability.pipelined(store) { |pipe| pipe.call("LPUSH", key, value) }

  # The queue's entries, or nil while the client still finds its way.
  def read(key)
    cluster.call("LRANGE", key, 0, -1)
  rescue RedisClient::Error
    nil
  end
end
