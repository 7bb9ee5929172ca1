# frozen_string_literal: true

require "test_helper"
require "deckhand/server"

# Each queue's depth and latency a minute, in a hash per queue and hour:
# one process takes a minute, a partitioned queue is one queue, a hash
# stays small and expires, and what another tool wrote there is left out.
class QueueSamplesTest < Minitest::Test
  QueueSamples = Deckhand::Store::Records::QueueSamples
  MINUTE = 29_000_000 # 2025-02-19 13:20 UTC, 20 minutes into its hour

  def store = Deckhand.config.store

  def key(name, minute) = Deckhand::Store::Layout::Untagged.queue_samples(name, Time.at(minute * 60))

  def test_one_claim_wins_a_minute
    assert QueueSamples.claim(store, MINUTE, "host-a:1")
    refute QueueSamples.claim(store, MINUTE, "host-b:2"), "the minute is taken"
    assert QueueSamples.claim(store, MINUTE + 1, "host-b:2"), "the next one is free"
    assert_operator redis.call("TTL", Deckhand::Store::Layout::Untagged.samples_taken(MINUTE)), :<=, QueueSamples::CLAIM_TTL
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

  def test_writes_and_reads_a_minute_each_across_hours
    QueueSamples.write(store, MINUTE - 21, [["mailers", 4, 1.5]]) # the hour before
    QueueSamples.write(store, MINUTE, [["mailers", 9, 12.25], ["default", 0, 0.0]])
    QueueSamples.write(store, MINUTE, [["mailers", 10, 13.0]]) # the same minute again: replaced, not doubled
    assert_equal [[MINUTE - 21, 4, 1.5], [MINUTE, 10, 13.0]], QueueSamples.read(store, "mailers", from: MINUTE - 60, to: MINUTE)
    assert_equal [[MINUTE, 10, 13.0]], QueueSamples.read(store, "mailers", from: MINUTE, to: MINUTE + 5)
    assert_equal [], QueueSamples.read(store, "mailers", from: MINUTE - 20, to: MINUTE - 1), "only the minutes asked for"
    assert_equal [[MINUTE, 0, 0.0]], QueueSamples.read(store, "default", from: MINUTE - 20, to: MINUTE)
    assert_equal 1, redis.call("HLEN", key("mailers", MINUTE))
    assert_in_delta QueueSamples::TTL, redis.call("TTL", key("mailers", MINUTE)), 5
    assert_equal 73 * 3600, QueueSamples::TTL, "as long as the hourly metrics: 72 hours of minutes are always there"
  end

  def test_an_hour_is_one_small_hash
    60.times { |m| QueueSamples.write(store, MINUTE - 20 + m, [["mailers", 100_000 + m, 3600.0]]) }
    60.times { |m| QueueSamples.write(store, MINUTE - 20 + m, [["mailers", 5, 0.0]]) }
    assert_equal 60, redis.call("HLEN", key("mailers", MINUTE)), "a field a minute however often it is written"
    assert_equal "listpack", redis.call("OBJECT", "ENCODING", key("mailers", MINUTE)).sub("ziplist", "listpack")
    assert_operator redis.call("MEMORY", "USAGE", key("mailers", MINUTE)), :<, 2048
  end

  def test_a_queue_never_sampled_reads_empty_and_foreign_fields_are_left_out
    assert_equal [], QueueSamples.read(store, "nothing-here", from: MINUTE - 4319, to: MINUTE)
    redis.call("HSET", key("mailers", MINUTE), "garbage", "1:2", "7", "x:y", "61", "1:1", "6", "3:250")
    assert_equal [[MINUTE - 14, 3, 0.25]], QueueSamples.read(store, "mailers", from: MINUTE - 20, to: MINUTE)
    QueueSamples.write(store, MINUTE, [])
    assert_equal 4, redis.call("HLEN", key("mailers", MINUTE)), "no samples, no write"
  end
end
