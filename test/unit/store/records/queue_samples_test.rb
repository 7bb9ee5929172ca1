# frozen_string_literal: true

require "test_helper"
require "deckhand/server"

# Each queue's depth and latency a minute, in a zset per queue: one process
# takes a minute, a partitioned queue is one queue, the zset stays bounded
# and what another tool wrote there is left out.
class QueueSamplesTest < Minitest::Test
  QueueSamples = Deckhand::Store::Records::QueueSamples

  def store = Deckhand.config.store

  def key(name) = Deckhand::Store::Layout::Untagged.queue_samples(name)

  def test_one_claim_wins_a_minute
    assert QueueSamples.claim(store, 29_000_000, "host-a:1")
    refute QueueSamples.claim(store, 29_000_000, "host-b:2"), "the minute is taken"
    assert QueueSamples.claim(store, 29_000_001, "host-b:2"), "the next one is free"
    assert_operator redis.call("TTL", Deckhand::Store::Layout::Untagged.samples_taken(29_000_000)), :<=, QueueSamples::CLAIM_TTL
  end

  def test_measures_depth_and_the_head_jobs_wait
    now = Time.now
    redis.call("LPUSH", "queue:mailers", JSON.generate("class" => "A", "jid" => "a", "enqueued_at" => now.to_f - 30))
    redis.call("LPUSH", "queue:mailers", JSON.generate("class" => "A", "jid" => "b", "enqueued_at" => now.to_f - 1))
    redis.call("LPUSH", "queue:odd", "not json")
    redis.call("SADD", "queues", "mailers", "odd", "empty")
    rows = QueueSamples.measure(store, now).sort
    assert_equal [["empty", 0, 0.0], ["mailers", 2], ["odd", 1, 0.0]], rows.map { |name, size, latency| (name == "mailers") ? [name, size] : [name, size, latency] }
    assert_in_delta 30.0, rows.assoc("mailers")[2], 0.01, "the head (oldest) job's wait, from enqueued_at"
  end

  def test_a_partitioned_queue_is_sampled_as_one
    Deckhand.config = new_config(partitions: {"default" => 3})
    Deckhand::Client.push_bulk("class" => "RecordJob", "args" => (1..7).to_a.zip)
    rows = QueueSamples.measure(store, Time.now + 5, lists: ->(queue) { Deckhand.config.partitions.names(queue) })
    assert_equal ["default"], rows.map(&:first)
    assert_equal 7, rows[0][1]
    assert_in_delta 5.0, rows[0][2], 1.0
  end

  def test_writes_and_reads_a_minute_each_and_stays_bounded
    minute = 29_000_000
    QueueSamples.write(store, minute - 1, [["mailers", 4, 1.5]])
    QueueSamples.write(store, minute, [["mailers", 9, 12.25], ["default", 0, 0.0]])
    QueueSamples.write(store, minute, [["mailers", 10, 13.0]]) # the same minute again: replaced, not doubled
    assert_equal [[minute - 1, 4, 1.5], [minute, 10, 13.0]], QueueSamples.read(store, "mailers", since: minute - 60)
    assert_equal [[minute, 10, 13.0]], QueueSamples.read(store, "mailers", since: minute)
    assert_equal [[minute, 0, 0.0]], QueueSamples.read(store, "default", since: 0)
    assert_in_delta QueueSamples::RETENTION, redis.call("TTL", key("mailers")), 5

    retention = QueueSamples::RETENTION / 60 # 4,320 minutes
    QueueSamples.write(store, minute + retention - 1, [["mailers", 1, 0.0]])
    assert_equal [minute, minute + retention - 1], QueueSamples.read(store, "mailers", since: 0).map(&:first)
    QueueSamples.write(store, minute + retention, [["mailers", 2, 0.0]])
    assert_equal [minute + retention - 1, minute + retention], QueueSamples.read(store, "mailers", since: 0).map(&:first),
      "a sample as old as the retention goes at the next write: never more than 4,320 a queue"
  end

  def test_a_queue_never_sampled_reads_empty_and_foreign_members_are_left_out
    assert_equal [], QueueSamples.read(store, "nothing-here", since: 0)
    redis.call("ZADD", key("mailers"), 5, "garbage", 6, "6:3:250")
    assert_equal [[6, 3, 0.25]], QueueSamples.read(store, "mailers", since: 0)
    QueueSamples.write(store, 7, [])
    assert_equal 2, redis.call("ZCARD", key("mailers")), "no samples, no write"
  end
end
