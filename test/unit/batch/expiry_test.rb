# frozen_string_literal: true

require_relative "../../support/batch/batch_helper"

# Batch data expires once the batch is done (or idle too long), indexes
# included: counted key by key, nothing stays behind.
class BatchExpiryTest < Minitest::Test
  include Deckhand::BatchHelpers

  def test_a_finished_batch_leaves_no_key_behind_after_its_success_ttl
    config = server_config
    batches = Array.new(3) do |n|
      batch = Deckhand::Batch.new
      batch.success_ttl = 3
      batch.on(:success, BatchApp::Callbacks)
      batch.jobs do
        BatchApp::Work.perform_async("w#{n}")
        BatchApp::Flaky.perform_async("flaky#{n}") # one failure each: a failures hash too
        child = Deckhand::Batch.new
        child.success_ttl = 3
        child.jobs { BatchApp::Work.perform_async("c#{n}") }
      end
      batch
    end
    with_server(config) do
      wait_for(message: "each flaky job to fail") { redis.call("LLEN", "app:attempts") >= 3 }
      3.times { |n| redis.call("SET", "app:fixed:flaky#{n}", "1") }
      wait_for_callbacks(3)
      # Checked at once: a loaded JVM can take seconds to stop the server.
      assert_operator batch_keys.size, :>, 0, "the finished batches' keys wait out their success_ttl"
      assert_every_batch_key_expires
    end
    wait_for(message: "every batch key to expire") { batch_keys.empty? }
    assert_empty batches.map(&:status).select(&:exists?)
  end

  def test_an_unfinished_batch_expires_after_its_idle_ttl
    batch = Deckhand::Batch.new
    batch.idle_ttl = 0.3
    jids = batch.jobs { BatchApp::Doomed.perform_async("never runs") }
    assert_every_batch_key_expires
    Deckhand::Batch::Tracker.new(Deckhand.config).failure(batch.bid, {"jid" => jids.first}, RuntimeError.new("x"))
    assert_includes batch_keys, Deckhand::Store::Layout::PlainBatches.failed(batch.bid)
    assert_every_batch_key_expires
    wait_for(message: "the idle batch to expire") { batch_keys.empty? }
  end

  def test_every_key_has_a_ttl_at_every_step
    batch = Deckhand::Batch.new
    jids = batch.jobs do
      2.times { BatchApp::Work.perform_async("w") }
      Deckhand::Batch.new.jobs { BatchApp::Work.perform_async("c") }
    end
    assert_every_batch_key_expires
    tracker = Deckhand::Batch::Tracker.new(Deckhand.config)
    tracker.failure(batch.bid, {"jid" => jids[0]}, RuntimeError.new("x"))
    assert_every_batch_key_expires
    tracker.death({"bid" => batch.bid, "jid" => jids[1]}, RuntimeError.new("y"))
    assert_every_batch_key_expires
    # Both batches' hash and jids, the parent's failed, dead and kids, the two indexes.
    assert_equal 9, batch_keys.size
  end

  def test_the_index_forgets_expired_batches
    old = Deckhand::Batch.new
    old.idle_ttl = 0.05
    old.jobs { BatchApp::Work.perform_async("old") }
    wait_for(message: "the old batch to expire") { !old.status.exists? }
    fresh = Deckhand::Batch.new
    fresh.jobs { BatchApp::Work.perform_async("fresh") }
    assert_equal [fresh.bid], redis.call("ZRANGE", Deckhand::Store::Layout::PlainBatches::INDEX, 0, -1)
    assert_equal [fresh.bid], redis.call("ZRANGE", Deckhand::Store::Layout::PlainBatches::EXPIRIES, 0, -1)
  end

  private

  def assert_every_batch_key_expires
    keys = batch_keys
    ttls = keys.map { |key| redis.call("PTTL", key) }
    assert keys.zip(ttls).all? { |_, ttl| ttl.positive? }, "keys without a TTL: #{keys.zip(ttls).reject { |_, t| t.positive? }}"
  end
end
