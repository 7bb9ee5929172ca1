# frozen_string_literal: true

require "test_helper"
require "deckhand/server"

# Queue throttles inside the scripts of the reliable fetch: what a fetch may
# take, and every way a slot comes back (acknowledgement, hand-back, stop,
# recovery of a dead process).
class ThrottleScriptTest < Minitest::Test
  Throttle = Deckhand::Config::Throttle
  CAP = Throttle.limit!("q", {concurrency: 3})

  def store = Deckhand.config.store

  def fetch(identity = "a") = Deckhand::Store::Scripts::Fetch.new(store, identity: identity, queues: ["q"])

  def held(field = "~held") = redis.call("HGET", "deckhand:throttle:q", field).to_i

  def push(count) = redis.call("LPUSH", "queue:q", *Array.new(count) { |i| "job#{i}" })

  def test_a_concurrency_cap_takes_only_free_slots_and_acknowledgements_give_them_back
    push(10)
    takes, wait = fetch("a").call(limit: 10, sources: [[0, 1]], acks: [], throttles: [[0, CAP, 0]])
    assert_equal 3, takes.first.payloads.size
    assert_operator wait, :>, 0, "jobs were held back: the fetcher is told when to look again"
    takes, = fetch("b").call(limit: 10, sources: [[0, 1]], acks: [], throttles: [[0, CAP, 0]])
    assert_empty takes, "another process finds every slot taken"
    assert_equal [3, 3], [held, held("a")]
    takes, = fetch("a").call(limit: 10, sources: [[0, 2]], acks: [], throttles: [[0, CAP, 2]]) # two settled
    assert_equal 2, takes.first.payloads.size
    assert_equal 3, held
    fetch("a").call(limit: 0, sources: [], acks: [], throttles: [[0, CAP, 99]]) # more than it holds
    assert_equal [0, 0], [held, held("a")]
    assert_equal 0, redis.call("HEXISTS", "deckhand:throttle:q", "a")
  end

  def test_a_rate_lets_a_burst_leave_then_says_when_the_next_job_may
    push(10)
    slow = Throttle.limit!("q", {rate: 10, per: :minute}) # one job every 6 s, a burst of 1
    takes, wait = fetch.call(limit: 10, sources: [[0, 1]], acks: [], throttles: [[0, slow, 0]])
    assert_equal 1, takes.first.payloads.size
    assert_includes 5_000..6_000, wait
    takes, = fetch.call(limit: 10, sources: [[0, 2]], acks: [], throttles: [[0, slow, 0]])
    assert_empty takes
    assert_equal 9, redis.call("LLEN", "queue:q")
  end

  def test_an_unthrottled_call_touches_no_throttle_state
    push(5)
    takes = fetch.call(limit: 10, sources: [[0, 1]], acks: [])
    assert_equal 5, takes.first.payloads.size
    assert_equal 0, redis.call("EXISTS", "deckhand:throttle:q")
  end

  def test_handed_back_lots_and_a_stop_give_slots_back
    push(10)
    fetch("a").call(limit: 10, sources: [[0, 1]], acks: [], throttles: [[0, CAP, 0]])
    requeue = Deckhand::Store::Scripts::Requeue.new(store, identity: "a", queues: ["q"])
    assert_equal 3, requeue.lots([[0, 1]]) # a lost fetch's lot
    assert_equal 0, held
    fetch("a").call(limit: 10, sources: [[0, 2]], acks: [], throttles: [[0, CAP, 0]])
    redis.call("HSET", "deckhand:throttle:q", "a", 5, "~held", 5) # even a count gone wrong
    requeue.all
    assert_equal [0, 0], [held, held("a")]
    assert_equal 10, redis.call("LLEN", "queue:q")
  end

  def test_recovering_a_dead_process_gives_its_slots_back
    push(10)
    fetch("dead").call(limit: 10, sources: [[0, 1]], acks: [], throttles: [[0, CAP, 0]])
    redis.call("HSET", "deckhand:owners", "dead", "{}")
    recovered, = Deckhand::Store::Scripts::Recover.new(store).call(identity: "dead", beat: nil, queues: ["q"], limit: 3, ttl: 60)
    assert_equal 3, recovered
    assert_equal [0, 0], [held, held("dead")]
  end
end
