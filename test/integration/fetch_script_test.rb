# frozen_string_literal: true

require "test_helper"

# store/scripts/fetch.lua on its own: the atomic move that reliable fetch rests on.
class FetchScriptTest < Minitest::Test
  def fetch(limit, seq, acks: [], queues: ["default"])
    keys = ["deckhand:inflight:test", *queues.map { |q| "queue:#{q}" }]
    Deckhand.config.store.script(:fetch, keys, [limit, seq, acks.size, *acks, *queues])
  end

  def test_moves_jobs_into_the_inflight_hash_and_acknowledges_in_the_same_step
    redis.call("LPUSH", "queue:default", "a", "b", "c")
    assert_equal ["default", 2, "a", "b"], fetch(2, 0).then { |r| [r[0], r[1], r[3], r[5]] }
    assert_equal({"1:default" => "a", "2:default" => "b"}, redis.call("HGETALL", "deckhand:inflight:test"))
    fetch(5, 2, acks: ["1:default"])
    assert_equal({"2:default" => "b", "3:default" => "c"}, redis.call("HGETALL", "deckhand:inflight:test"))
    assert_equal 0, redis.call("LLEN", "queue:default")
  end

  def test_drains_sources_in_the_order_given
    redis.call("LPUSH", "queue:low", "l1")
    redis.call("LPUSH", "queue:high", "h1", "h2")
    reply = fetch(3, 0, queues: %w[high low])
    assert_equal ["high", 2, "1:high", "h1", "2:high", "h2", "low", 1, "3:low", "l1"], reply
  end

  # A client resending the script after a dropped reply must not overwrite the
  # fields of the run that already happened: those jobs would be lost.
  def test_a_replayed_fetch_is_refused_and_loses_nothing
    redis.call("LPUSH", "queue:default", "a", "b")
    fetch(1, 0)
    error = assert_raises(Deckhand::CommandError) { fetch(1, 0) }
    assert_includes error.message, "DECKHAND_REPLAYED"
    assert_equal({"1:default" => "a"}, redis.call("HGETALL", "deckhand:inflight:test"))
    assert_equal ["b"], redis.call("LRANGE", "queue:default", 0, -1)
  end
end
