# frozen_string_literal: true

require "test_helper"

# store/scripts/fetch/fetch.lua on its own: the atomic move that reliable fetch rests on.
class FetchScriptTest < Minitest::Test
  LotBits = Deckhand::Store::Inflight::LotBits

  def fetch(queues = ["default"]) = Deckhand::Store::Scripts::Fetch.new(Deckhand.config.store, identity: "test", queues: queues)

  def inflight(queue = "default") = redis.call("HGETALL", "deckhand:inflight:test:#{queue}")

  def calls(*commands) = commands.map { |name| redis.call("INFO", "commandstats")[/cmdstat_#{name}:calls=(\d+)/, 1].to_i }

  def lot(id, queue = "default") = redis.call("LRANGE", "deckhand:lot:test:#{queue}:#{id}", 0, -1)

  def test_moves_jobs_into_one_lot_per_queue_and_acknowledges_in_the_same_step
    redis.call("LPUSH", "queue:default", "a", "b", "c")
    takes = fetch.call(limit: 2, sources: [[0, 1]], acks: [])
    assert_equal [[0, nil, %w[a b]]], takes.map(&:to_a)
    assert_equal({"1" => "2"}, inflight)
    assert_equal %w[a b], lot(1)

    bits = LotBits.settle!(LotBits.empty_bits(2), 1)
    takes = fetch.call(limit: 5, sources: [[0, 2]], acks: [[0, 1, bits, []]])
    assert_equal [[0, nil, %w[c]]], takes.map(&:to_a)
    assert_equal({"1" => "2", "1~" => "\x02".b, "2" => "1"}, inflight)

    redis.call("HSET", "deckhand:inflight:test:default", "1:0", "") # settled by a script
    fetch.call(limit: 0, sources: [], acks: [[0, 1, "", [0]], [0, 2, LotBits.settle!(LotBits.empty_bits(1), 0), []]])
    assert_equal({"2" => "1", "2~" => "\x01".b}, inflight, "a settled lot leaves with its marks, a partial one is marked")
    assert_empty lot(1)
    assert_equal 0, redis.call("LLEN", "queue:default")
  end

  def test_a_landed_job_settled_leaves_its_landing_list
    redis.call("LPUSH", "deckhand:landing:test:default", "x", "y")
    fetch.call(limit: 0, sources: [], acks: [], landed: [[0, "x"]])
    assert_equal ["y"], redis.call("LRANGE", "deckhand:landing:test:default", 0, -1)
  end

  def test_a_bitmap_for_a_lot_already_gone_is_not_written
    fetch.call(limit: 0, sources: [], acks: [[0, 9, "\x01".b, []]])
    assert_empty inflight, "a lot recovered meanwhile must not come back as a stray bitmap"
  end

  def test_drains_sources_in_the_order_given_and_keeps_payload_bytes
    odd = "{\"args\":[\"é\\n,\"],\"x\":1}\n"
    redis.call("LPUSH", "queue:low", odd)
    redis.call("LPUSH", "queue:high", "h1", "h2")
    takes = fetch(%w[low high]).call(limit: 3, sources: [[1, 1], [0, 2]], acks: [])
    assert_equal [0, 1], takes.map(&:source)
    assert_equal [%w[h1 h2], [odd.b]], takes.map { |take| take.payloads.map(&:b) }
    assert_equal [odd.b], lot(2, "low").map(&:b)
  end

  # Weighted queues: each source gives up to its share first, then what is
  # left of the limit goes to the sources in order.
  def test_shares_split_the_limit_and_a_short_share_passes_on
    redis.call("LPUSH", "queue:heavy", *(1..10).map { |n| "h#{n}" })
    redis.call("LPUSH", "queue:light", *(1..10).map { |n| "l#{n}" })
    takes = fetch(%w[heavy light]).call(limit: 4, sources: [[1, 1, 1], [0, 2, 3]], acks: [])
    assert_equal [[0, %w[l1]], [1, %w[h1 h2 h3]]], takes.map { |take| [take.source, take.payloads] }

    redis.call("DEL", "queue:light")
    redis.call("LPUSH", "queue:light", "l2")
    takes = fetch(%w[heavy light]).call(limit: 8, sources: [[1, 3, 2], [0, 4, 6]], acks: [])
    assert_equal [[0, %w[l2]], [1, %w[h4 h5 h6 h7 h8 h9 h10]]], takes.map { |take| [take.source, take.payloads] },
      "the light queue's unused share goes to the heavy one"

    redis.call("LPUSH", "queue:light", "l3", "l4", "l5")
    takes = fetch(%w[heavy light]).call(limit: 3, sources: [[0, 5, 2], [1, 6, 1]], acks: [])
    assert_equal [[1, %w[l3 l4 l5]]], takes.map { |take| [take.source, take.payloads] },
      "an empty queue's share goes to the next source"
  end

  def test_reports_the_queue_s_recovery_version
    redis.call("HSET", "deckhand:recoveries:default", "~v", "3")
    redis.call("LPUSH", "queue:default", "a")
    assert_equal "3", fetch.call(limit: 1, sources: [[0, 1]], acks: []).first.version
  end

  # The lot is filed inside Redis and read back in the same round trip: a
  # lot of any size, in pop order (oldest first), payloads byte for byte.
  def test_a_large_lot_comes_back_whole_in_pop_order
    payloads = Array.new(10_000) { |i| "{\"n\":#{i},\"b\":\"\xff\"}".b }
    payloads.each_slice(1_000) { |slice| redis.call("LPUSH", "queue:default", *slice) }
    takes = fetch.call(limit: 9_000, sources: [[0, 1]], acks: [])
    assert_equal payloads.first(9_000), takes.first.payloads.map(&:b)
    assert_equal({"1" => "9000"}, inflight)
    assert_equal payloads.first(9_000), lot(1).map(&:b)
    assert_equal payloads.last(1_000).reverse, redis.call("LRANGE", "queue:default", 0, -1).map(&:b)
  end

  def test_a_flushed_script_cache_costs_nothing_but_a_resend
    redis.call("LPUSH", "queue:default", "a", "b")
    redis.call("SCRIPT", "FLUSH")
    assert_equal [[0, nil, %w[a b]]], fetch.call(limit: 5, sources: [[0, 1]], acks: []).map(&:to_a)
    assert_equal %w[a b], lot(1)
  end

  def test_a_queue_that_is_not_a_list_is_refused_before_anything_moves
    redis.call("SADD", "queue:default", "x")
    error = assert_raises(Deckhand::CommandError) { fetch.call(limit: 5, sources: [[0, 1]], acks: []) }
    assert_includes error.message, "WRONGTYPE"
    assert_equal 0, redis.call("EXISTS", "deckhand:lot:test:default:1")
    assert_empty inflight
  end

  # Where SORT is refused (here an ACL; some Redis-compatible servers lack
  # SORT ... STORE) the jobs move through Lua instead, into the same lot.
  def test_without_sort_the_lot_is_filed_the_same_way
    redis.call("ACL", "SETUSER", "fetch-test", "on", ">secret", "~*", "&*", "+@all", "-sort")
    store = Deckhand::Store.new({url: Deckhand::RedisHarness.url, username: "fetch-test", password: "secret"}, size: 1)
    redis.call("LPUSH", "queue:default", "a", "b", "c")
    fetch = Deckhand::Store::Scripts::Fetch.new(store, identity: "test", queues: ["default"])
    assert_equal [[0, nil, %w[a b]]], fetch.call(limit: 2, sources: [[0, 1]], acks: []).map(&:to_a)
    assert_equal %w[a b], lot(1)
    assert_equal({"1" => "2"}, inflight)
    assert_equal %w[c], redis.call("LRANGE", "queue:default", 0, -1)
  ensure
    store&.shutdown
    redis.call("ACL", "DELUSER", "fetch-test")
  end

  # A client resending the script after a dropped reply must not take more
  # jobs into the lot the run that already happened filled.
  def test_a_replayed_fetch_is_refused_and_loses_nothing
    redis.call("LPUSH", "queue:default", "a", "b")
    fetch.call(limit: 1, sources: [[0, 1]], acks: [])
    error = assert_raises(Deckhand::CommandError) { fetch.call(limit: 1, sources: [[0, 1]], acks: []) }
    assert_includes error.message, "DECKHAND_REPLAYED"
    assert_equal %w[a], lot(1)
    assert_equal ["b"], redis.call("LRANGE", "queue:default", 0, -1)
  end

  # The replay check names every lot in one call: a queue with levels whose
  # first run filed a later source's lot (its levels were empty) is refused
  # before anything moves, and an acknowledgement-only call (no sources, no
  # lot to check) runs.
  def test_a_replayed_fetch_with_levels_is_refused_by_any_lot_it_filed
    redis.call("LPUSH", "queue:default", "a", "b")
    asked = [[0, 1, nil, -2], [0, 2], [0, 3, nil, 4]]
    assert_equal [[1, nil, %w[a]]], fetch.call(limit: 1, sources: asked, acks: []).map(&:to_a)
    error = assert_raises(Deckhand::CommandError) { fetch.call(limit: 1, sources: asked, acks: []) }
    assert_includes error.message, "DECKHAND_REPLAYED"
    assert_equal %w[a], lot(2)
    assert_equal ["b"], redis.call("LRANGE", "queue:default", 0, -1)
    assert_empty fetch.call(limit: 0, sources: [], acks: [[0, 2, "", []]])
    assert_empty inflight
  end

  # What a priority level costs a fetch that does not reach it: its lot is
  # checked with the others in one call, and nothing else (docs/priority.md).
  def test_a_fetch_checks_every_lot_in_one_call_and_reads_no_level_past_the_limit
    redis.call("LPUSH", "queue:default~r-2", "u1", "u2")
    before = calls("exists", "llen")
    takes = fetch.call(limit: 2, sources: [[0, 1, nil, -2], [0, 2], [0, 3, nil, 4]], acks: [])
    assert_equal [[0, nil, %w[u1 u2]]], takes.map(&:to_a)
    assert_equal [1, 1], calls("exists", "llen").zip(before).map { |now, was| now - was }
  end

  # A priority level's list (docs/priority.md) is a source of its own whose
  # lot is its queue's: acknowledged, handed back and recovered as any.
  def test_a_priority_levels_list_fills_a_lot_of_its_queue_and_goes_back_to_the_queue
    redis.call("LPUSH", "queue:default", "a", "b")
    redis.call("LPUSH", "queue:default~r-2", "u1", "u2")
    takes = fetch.call(limit: 3, sources: [[0, 1, nil, -2], [0, 2]], acks: [])
    assert_equal [[0, nil, %w[u1 u2]], [1, nil, %w[a]]], takes.map(&:to_a)
    assert_equal({"1" => "2", "2" => "1"}, inflight)
    assert_equal 0, redis.call("LLEN", "queue:default~r-2")
    requeue = Deckhand::Store::Scripts::Requeue.new(Deckhand.config.store, identity: "test", queues: ["default"])
    assert_equal 3, requeue.lots([[0, 1], [0, 2]])
    assert_equal %w[u1 u2 a b], redis.call("LRANGE", "queue:default", 0, -1).reverse, "handed back to the front of the queue's own list"
    assert_empty inflight
  end

  # A throttle lets a queue's sources (its levels, then its own list) share
  # what it allows: never more in all.
  def test_a_throttle_is_shared_by_a_queues_priority_levels
    redis.call("LPUSH", "queue:default~r-1", "u1", "u2")
    redis.call("LPUSH", "queue:default", "a", "b", "c")
    limit = Deckhand::Config::Throttle::Limit.new(nil, nil, 3)
    takes, _wait = fetch.call(limit: 10, sources: [[0, 1, nil, -1], [0, 2]], acks: [], throttles: [[0, limit, 0]])
    assert_equal [%w[u1 u2], %w[a]], takes.map(&:payloads)
    assert_equal "3", redis.call("HGET", "deckhand:throttle:default", "~held")
  end
end
