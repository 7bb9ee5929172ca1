# frozen_string_literal: true

require "test_helper"

# store/scripts/fetch.lua on its own: the atomic move that reliable fetch rests on.
class FetchScriptTest < Minitest::Test
  Lot = Deckhand::Store::Lot

  def fetch(queues = ["default"]) = Deckhand::Store::Scripts::Fetch.new(Deckhand.config.store, identity: "test", queues: queues)

  def lots(queue = "default") = redis.call("HGETALL", "deckhand:inflight:test:#{queue}")

  def test_moves_jobs_into_one_lot_per_queue_and_acknowledges_in_the_same_step
    redis.call("LPUSH", "queue:default", "a", "b", "c")
    takes = fetch.call(limit: 2, last_lot: 0, sources: [[0, :queue]], acks: [])
    assert_equal [[0, 1, nil, %w[a b]]], takes.map(&:to_a)
    assert_equal({"1" => Lot.encode(%w[a b])}, lots)

    bits = Lot.settle!(Lot.empty_bits(2), 1)
    takes = fetch.call(limit: 5, last_lot: 1, sources: [[0, :queue]], acks: [0, 1, bits])
    assert_equal [[0, 2, nil, %w[c]]], takes.map(&:to_a)
    assert_equal({"1" => Lot.encode(%w[a b]), "1~" => "\x02".b, "2" => Lot.encode(%w[c])}, lots)

    fetch.call(limit: 0, last_lot: 2, sources: [], acks: [0, 1, "", 0, 2, Lot.settle!(Lot.empty_bits(1), 0)])
    assert_equal({"2" => Lot.encode(%w[c]), "2~" => "\x01".b}, lots, "a settled lot leaves, a partial one is marked")
    assert_equal 0, redis.call("LLEN", "queue:default")
  end

  def test_marks_merge_with_those_already_in_redis
    redis.call("LPUSH", "queue:default", "a", "b", "c")
    fetch.call(limit: 3, last_lot: 0, sources: [[0, :queue]], acks: [])
    fetch.call(limit: 0, last_lot: 1, sources: [], acks: [0, 1, "\x01".b])
    fetch.call(limit: 0, last_lot: 1, sources: [], acks: [0, 1, "\x04".b])
    assert_equal "\x05".b, lots["1~"]
  end

  def test_drains_sources_in_the_order_given_and_keeps_payload_bytes
    odd = "{\"args\":[\"é\\n,\"],\"x\":1}\n"
    redis.call("LPUSH", "queue:low", odd)
    redis.call("LPUSH", "queue:high", "h1", "h2")
    takes = fetch(%w[low high]).call(limit: 3, last_lot: 0, sources: [[1, :queue], [0, :queue]], acks: [])
    assert_equal [[1, 1, nil, %w[h1 h2]], [0, 2, nil, [odd.b]]], takes.map(&:to_a).map { |t| t[0..2] + [t[3].map(&:b)] }
    assert_equal [odd.b], Lot.decode(lots("low")["2"]).map(&:b)
  end

  def test_reports_the_queue_s_recovery_version
    redis.call("HSET", "deckhand:recoveries:default", "~v", "3")
    redis.call("LPUSH", "queue:default", "a")
    assert_equal "3", fetch.call(limit: 1, last_lot: 0, sources: [[0, :queue]], acks: []).first.version
  end

  # A client resending the script after a dropped reply must not overwrite the
  # lot of the run that already happened: those jobs would be lost.
  def test_a_replayed_fetch_is_refused_and_loses_nothing
    redis.call("LPUSH", "queue:default", "a", "b")
    fetch.call(limit: 1, last_lot: 0, sources: [[0, :queue]], acks: [])
    error = assert_raises(Deckhand::CommandError) { fetch.call(limit: 1, last_lot: 0, sources: [[0, :queue]], acks: []) }
    assert_includes error.message, "DECKHAND_REPLAYED"
    assert_equal({"1" => Lot.encode(%w[a])}, lots)
    assert_equal ["b"], redis.call("LRANGE", "queue:default", 0, -1)
  end
end
