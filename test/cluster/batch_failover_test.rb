# frozen_string_literal: true

require "test_helper"
require "deckhand/batch"
require_relative "../support/cluster_helpers"
require_relative "../support/cluster_batch_helpers"

# A callback queue's primary dies as the batch completes: the outcome is
# recorded, the push fails, and the calls that follow (what the server's
# batch middleware does after a Redis error) push the callbacks once the
# replica took over, each once.
class ClusterBatchFailoverTest < Minitest::Test
  include Deckhand::ClusterHelpers
  include Deckhand::ClusterBatchHelpers

  def harness = Deckhand::RedisClusterHarness.cluster

  def test_a_failover_of_the_callback_queues_primary_delays_the_callbacks_and_fires_each_once
    bookkeeping = harness.primary_for(Deckhand::Store::Layout::ClusterBatches::INDEX).port
    queue = %w[default mail reports critical].find { |name| harness.primary_for(keys.queue(name)).port != bookkeeping }
    batch = Deckhand::Batch.new
    batch.callback_queue = queue
    batch.on(:complete, "ClusterBatchCallbacks")
    batch.on(:success, "ClusterBatchCallbacks")
    jids = batch.jobs { 2.times { |i| Deckhand::Client.push("class" => "ClusterBatchWork", "args" => [i], "queue" => queue) } }
    assert tracker.success(batch.bid, jids.first)

    harness.kill(harness.primary_for(keys.queue(queue)))
    failures = 0
    wait_for(message: "the last outcome recorded and its callbacks pushed") do
      tracker.success(batch.bid, jids.last)
      true
    rescue Deckhand::RedisError
      failures += 1
      false
    end
    assert_operator failures, :>, 0, "the callback push never met the dead primary"
    harness.wait_until_healthy
    callbacks = wait_for(message: "the harness' client to see the new primary") do
      cluster.call("LRANGE", keys.queue(queue), 0, -1)
    rescue RedisClient::Error
      nil
    end
    events = callbacks.map { |raw| JSON.parse(raw) }.select { |job| job["class"] == Deckhand::Batch::CallbackJob.name }
    assert_equal %w[complete success], events.reverse.map { |job| job["args"][1] }
    assert Deckhand::Batch::Status.new(batch.bid).success?
    assert_equal 0, cluster.call("ZCARD", Deckhand::Store::Layout::ClusterBatches::OUTBOX)
  ensure
    Deckhand::RedisClusterHarness.restart
  end
end
