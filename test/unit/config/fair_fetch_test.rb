# frozen_string_literal: true

require "test_helper"
require "deckhand/server"

# fetch.lua on a fair queue (store/scripts/lib/fair.lua), one call at a time:
# tenants' jobs for an empty queue go straight into the lot when it takes
# them all, else onto the queue first; nothing is lost either way.
class FairFetchTest < Minitest::Test
  def setup
    super
    Deckhand.config = new_config(fair_queues: {"reports" => {}})
  end

  def store = Deckhand.config.store

  def fetch(queues = ["reports"]) = Deckhand::Store::Scripts::Fetch.new(store, identity: "host:1:fair", queues: queues)

  def push(queue, tenant, *args) = args.map { |arg| Deckhand::Client.push("class" => "RecordJob", "queue" => queue, "tenant" => tenant, "args" => [arg]) }

  def jids(take) = take.payloads.map { |raw| JSON.parse(raw)["jid"] }

  # The first job of an idle queue goes onto it; fetching it leaves the
  # queue empty and the tenants' jobs waiting.
  def backlog
    first = push("reports", "a", 0)
    waiting = push("reports", "a", 1, 2, 3) + push("reports", "b", 1, 2)
    assert_equal first, jids(fetch.call(limit: 1, sources: [[0, 1]], acks: []).first)
    assert_equal 5, redis.call("ZCARD", "deckhand:fair:reports")
    waiting
  end

  def test_an_empty_queue_s_tenants_jobs_go_straight_into_the_lot_in_their_turns
    a1, a2, a3, b1, b2 = backlog
    redis.call("CONFIG", "RESETSTAT")
    take = fetch.call(limit: 10, sources: [[0, 2]], acks: []).first
    assert_equal [a1, b1, a2, b2, a3], jids(take), "scores 1, 1, 2, 2, 3: the tenants in turn"
    assert_empty redis.call("INFO", "commandstats").scan(/cmdstat_(lpush|sort|ltrim):/), "not through the queue"
    assert_equal jids(take), redis.call("LRANGE", "deckhand:lot:host:1:fair:reports:2", 0, -1).map { |raw| JSON.parse(raw)["jid"] }
    assert_equal "5", redis.call("HGET", "deckhand:inflight:host:1:fair:reports", "2")
    assert_equal 0, redis.call("LLEN", "queue:reports")
    assert_equal 0, redis.call("EXISTS", "deckhand:fair:reports")
    assert_equal ["~vt"], redis.call("HKEYS", "deckhand:tenants:reports")
    assert_equal "3", redis.call("HGET", "deckhand:tenants:reports", "~vt")
  end

  def test_jobs_a_lot_takes_only_part_of_wait_on_the_queue
    a1, a2, a3, b1, b2 = backlog
    others = Array.new(4) { |i| Deckhand::Client.push("class" => "RecordJob", "queue" => "other", "args" => [i]) }
    takes = fetch(%w[reports other]).call(limit: 3, sources: [[0, 2, 1], [1, 3, 2]], acks: [])
    assert_equal [[0, [a1]], [1, others.first(2)]], takes.map { |take| [take.source, jids(take)] }
    assert_equal [b1, a2], redis.call("LRANGE", "queue:reports", 0, -1).reverse.map { |raw| JSON.parse(raw)["jid"] }, "the next in line, on the queue"
    assert_equal 2, redis.call("ZCARD", "deckhand:fair:reports")
    assert_equal({"n:a" => "1", "n:b" => "1"}, redis.call("HGETALL", "deckhand:tenants:reports").slice("n:a", "n:b"))
    rest = fetch.call(limit: 10, sources: [[0, 4]], acks: []).first
    assert_equal [b1, a2, b2, a3], jids(rest)
  end

  # A weighted split may give a source no share: its jobs, read before the
  # plan, go onto its queue when the sources before it fill the limit.
  def test_jobs_read_for_a_source_the_fetch_does_not_reach_go_onto_its_queue
    a1, a2, a3, b1, b2 = backlog
    others = Array.new(3) { |i| Deckhand::Client.push("class" => "RecordJob", "queue" => "other", "args" => [i]) }
    takes = fetch(%w[other reports]).call(limit: 2, sources: [[0, 2, 2], [1, 3, 0]], acks: [])
    assert_equal [[0, others.first(2)]], takes.map { |take| [take.source, jids(take)] }
    assert_equal [a1, b1], redis.call("LRANGE", "queue:reports", 0, -1).reverse.map { |raw| JSON.parse(raw)["jid"] }
    assert_equal [a2, b2, a3], redis.call("ZRANGE", "deckhand:fair:reports", 0, -1).map { |member| JSON.parse(member.split("\n", 2).last)["jid"] }
    assert_equal 0, redis.call("EXISTS", "deckhand:lot:host:1:fair:reports:3")
    assert_equal({"n:a" => "2", "n:b" => "1"}, redis.call("HGETALL", "deckhand:tenants:reports").slice("n:a", "n:b"))
  end
end
