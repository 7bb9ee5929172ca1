# frozen_string_literal: true

require "test_helper"
require "deckhand/batch"
require "deckhand/store/sets/one_set"
require_relative "../support/script_guard"

# Conservation, script by script: Redis keeps what a script wrote before a
# command in it failed, so each script that moves a job checks the type of
# every key it writes before its first write (store/scripts/lib/guard.lua),
# or orders its writes so that any prefix leaves the job where the fleet
# finds it. Each test makes one key the wrong type, runs the script, and
# checks that the refusal changed nothing; then fixes the key and checks the
# job moves exactly once.
class ScriptConservationTest < Minitest::Test
  Scripts = Deckhand::Store::Scripts
  Keys = Deckhand::Store::Layout::Plain
  BatchKeys = Deckhand::Store::Layout::PlainBatches

  def store = Deckhand::RedisHarness.store

  def job(jid, queue: "default", **extra) = JSON.generate({"class" => "RecordJob", "args" => [1], "jid" => jid, "queue" => queue, "enqueued_at" => 1.0}.merge(extra))

  def refused(&)
    error = assert_raises(Deckhand::CommandError, &)
    assert_match(/WRONGTYPE/, error.message)
    error
  end

  def members(key) = redis.call("ZRANGE", key, 0, -1)

  def list(key) = redis.call("LRANGE", key, 0, -1)

  def test_schedule_leaves_a_due_job_in_its_set_when_its_queue_is_the_wrong_type
    redis.call("ZADD", "retry", 1, job("a"))
    redis.call("HSET", "queue:default", "x", "1")
    schedule = Scripts::Schedule.new(store)
    refused { schedule.call(now: Time.now.to_f, limit: 10, stamp: "1.0") }
    assert_equal [job("a")], members("retry"), "the job must stay in retry, not vanish"

    redis.call("DEL", "queue:default")
    assert_equal 1, schedule.call(now: Time.now.to_f, limit: 10, stamp: "1.0").first
    assert_equal [job("a")], list("queue:default")
    assert_empty members("retry")
  end

  def test_schedule_leaves_a_corrupt_entry_in_its_set_when_the_dead_set_is_the_wrong_type
    redis.call("ZADD", "schedule", 1, "not json")
    redis.call("SET", "dead", "x")
    refused { Scripts::Schedule.new(store).call(now: Time.now.to_f, limit: 10, stamp: "1.0") }
    assert_equal ["not json"], members("schedule")
  end

  def test_zset_move_leaves_the_entry_when_the_queues_set_is_the_wrong_type
    redis.call("ZADD", "retry", 1, job("a"))
    redis.call("SET", "queues", "x")
    refused { Scripts::ZsetMove.new(store).call("retry", [[job("a"), "default", job("a")]]) }
    assert_equal [job("a")], members("retry")
    assert_empty list("queue:default")
  end

  def test_zset_kill_leaves_the_entry_when_the_dead_set_is_the_wrong_type
    redis.call("ZADD", "retry", 1, job("a"))
    redis.call("SET", "dead", "x")
    refused { Scripts::ZsetKill.new(store).call("retry", [job("a")], now: 2.0, dead_before: 0, max_jobs: 100) }
    assert_equal [job("a")], members("retry")
  end

  def test_zset_kill_moves_every_entry_when_a_lock_key_is_not_a_lock
    redis.call("ZADD", "retry", 1, job("a"), 2, job("b"))
    redis.call("HSET", "unique:a", "not", "a lock")
    moved = Scripts::ZsetKill.new(store).call("retry", [job("a"), job("b")], now: 2.0, dead_before: 0, max_jobs: 100,
      locks: [["unique:a", "a"], nil])
    assert_equal [1, 2], moved
    assert_equal [job("a"), job("b")].sort, members("dead").sort
    assert_equal "hash", redis.call("TYPE", "unique:a"), "a key that is not a lock is left alone"
  end

  # A dead process held a lot of two jobs; the first one taken is a poison
  # pill (its count reaches the limit) and the poison hash is the wrong type.
  def test_recover_moves_nothing_when_a_key_it_writes_is_the_wrong_type
    identity = "host:1:dead"
    lot = Keys.lot(identity, "default", 1)
    redis.call("RPUSH", lot, job("pill"), job("innocent"))
    redis.call("HSET", Keys.inflight(identity, "default"), "1", "2")
    redis.call("HSET", Keys.recoveries("default"), "pill", "2")
    redis.call("SADD", Keys.suspects(identity, "default"), "pill")
    Deckhand::Store::Inflight::Owners.register(store, identity, {"queues" => ["default"]})
    redis.call("SET", Keys.poison("default"), "x")
    recover = Scripts::Recover.new(store)
    refused { recover.call(identity: identity, beat: "", queues: ["default"], limit: 3, ttl: 60) }
    assert_empty list("queue:default"), "nothing goes back while the lot stays: it would go back twice"
    assert_equal [job("pill"), job("innocent")], list(lot)

    redis.call("DEL", Keys.poison("default"))
    assert_equal [1, 2, 1], recover.call(identity: identity, beat: "", queues: ["default"], limit: 3, ttl: 60)
    assert_equal [job("innocent")], list("queue:default"), "the innocent job goes back once"
    assert_equal [job("pill")], redis.call("HVALS", Keys.poison("default"))
  end

  def test_recover_queue_moves_nothing_when_a_key_it_writes_is_the_wrong_type
    identity = "host:1:dead"
    redis.call("RPUSH", Keys.lot(identity, "default", 1), job("pill"), job("innocent"))
    redis.call("HSET", Keys.inflight(identity, "default"), "1", "2")
    redis.call("HSET", Keys.recoveries("default"), "pill", "2")
    redis.call("SADD", Keys.suspects(identity, "default"), "pill")
    redis.call("SET", Keys.poison("default"), "x")
    refused { Scripts::RecoverQueue.new(store).call(identity, "default", ["1"], limit: 3, ttl: 60) }
    assert_empty list("queue:default")
  end

  def test_unique_push_takes_no_lock_when_the_queue_is_the_wrong_type
    redis.call("SET", "queue:default", "x")
    lock = Struct.new(:key, :jid, :ttl_ms).new("unique:a", "a", 60_000)
    refused { Scripts::UniquePush.new(store).call("default", [[lock, nil, job("a")]]) }
    assert_equal 0, redis.call("EXISTS", "unique:a"), "no lock may be held without its job"
  end

  # A debounced push whose queue is the wrong type (its replace may reach
  # into the queue) writes nothing: the earlier job stays scheduled, with its
  # record; once the key is fixed the new job takes its place exactly once.
  def test_collapse_push_replaces_nothing_when_the_queue_is_the_wrong_type
    claim = Deckhand::Collapsing::Claim.new("debounce", "deckhand:debounce:a", 60_000, 120_000)
    Scripts::CollapsePush.new(store).call("default", [[claim, "a", nil, job("a")]])
    redis.call("SET", "queue:default", "x")
    refused { Scripts::CollapsePush.new(store).call("default", [[claim, "b", nil, job("b")]]) }
    assert_equal [job("a")], members("schedule")
    assert_equal "a", redis.call("HGET", "deckhand:debounce:a", "jid")
    redis.call("DEL", "queue:default")
    assert_equal [[true, "a"]], Scripts::CollapsePush.new(store).call("default", [[claim, "b", nil, job("b")]])
    assert_equal [job("b")], members("schedule")
  end

  # Holding a job of a paused class (settle.lua): a held set of the wrong
  # type refuses the write before the job is marked settled; fixed, the job
  # is held once; the resume moves it back to its queue once.
  def test_settle_holds_nothing_when_the_held_set_is_the_wrong_type
    identity = "host:1:hold"
    redis.call("RPUSH", Keys.lot(identity, "default", 3), job("a"))
    redis.call("HSET", Keys.inflight(identity, "default"), "3", "1")
    held = Keys.held("default", "RecordJob")
    redis.call("SET", held, "x")
    settle = Scripts::Settle.new(store, identity: identity, queue: "default")
    refused { settle.hold([:lot, 3, 0], "RecordJob", at: 1.0, payload: job("a")) }
    assert_nil redis.call("HGET", Keys.inflight(identity, "default"), "3:0"), "still in flight, unsettled"
    redis.call("DEL", held)
    assert_equal :written, settle.hold([:lot, 3, 0], "RecordJob", at: 1.0, payload: job("a"))
    redis.call("SET", "queue:default", "x")
    refused { Deckhand::Store::Jobs::HeldClasses.resume(store, "RecordJob", ["default"]) }
    assert_equal [job("a")], members(held), "a queue of the wrong type leaves it held"
    redis.call("DEL", "queue:default")
    assert_equal 1, Deckhand::Store::Jobs::HeldClasses.resume(store, "RecordJob", ["default"])
    assert_equal [job("a")], list("queue:default")
    assert_empty members(held)
  end

  def test_periodic_push_writes_no_marker_for_a_push_refused
    redis.call("SET", "queue:default", "x")
    push = Scripts::PeriodicPush.new(store)
    refused { push.call(queue: "default", name: "nightly", tick: 100, jid: "a", payload: job("a")) }
    redis.call("DEL", "queue:default")
    assert push.call(queue: "default", name: "nightly", tick: 100, jid: "a", payload: job("a")), "the tick is pushed on the retry"
    assert_equal [job("a")], list("queue:default")
  end

  # Cluster mode's recording of a tick, run here on one Redis: three keys.
  def test_periodic_enqueue_records_no_pending_push_it_cannot_list
    redis.call("SET", Keys::PERIODIC_LEADER, "1:me")
    state = Keys.periodic("nightly")
    redis.call("HSET", state, "since", "1")
    redis.call("SET", Keys::PERIODIC_PENDING, "x")
    refused do
      store.evalsha(Scripts::PeriodicEnqueue, [Keys::PERIODIC_LEADER, state, Keys::PERIODIC_PENDING],
        ["1:me", 100, 200, 50, "default", "a", job("a"), "nightly"])
    end
    assert_nil redis.call("HGET", state, "pending_jid"), "a pending push nobody lists would hold the entry forever"
  end

  def test_batch_push_registers_no_job_it_cannot_queue
    ops = batch_ops
    assert_equal "ok", ops.create("b1", parent: nil, idle_ttl_ms: 60_000, success_ttl_ms: 60_000, callback_queue: "cb",
      description: "", callbacks: ["", "", ""])
    redis.call("SET", "queue:work", "x")
    refused { ops.push("b1", ["a"], {"work" => [job("a", queue: "work")]}) }
    assert_equal 0, redis.call("SCARD", BatchKeys.jids("b1")), "a job counted but never queued holds its batch open forever"
  end

  def test_batch_success_of_the_last_job_counts_it_only_with_its_completion
    ops = batch_ops
    on_success = JSON.generate([["cb1", %({"class":"Cb","jid":"cb1","queue":"cb")]])
    ops.create("b1", parent: nil, idle_ttl_ms: 60_000, success_ttl_ms: 60_000, callback_queue: "cb", description: "",
      callbacks: ["", on_success, ""])
    ops.push("b1", ["a"], {"work" => [job("a", queue: "work")]})
    ops.release("b1")
    redis.call("SET", "queue:cb", "x")
    refused { ops.success("b1", "a") }
    assert_equal ["a"], redis.call("SMEMBERS", BatchKeys.jids("b1"))

    redis.call("DEL", "queue:cb")
    assert_equal 1, ops.success("b1", "a")
    assert_equal ["cb1"], list("queue:cb").map { |raw| JSON.parse(raw)["jid"] }, "the batch succeeds once its last job does"
  end

  def test_batch_failure_counts_the_job_only_with_the_rest_of_its_bookkeeping
    ops = batch_ops
    ops.create("b1", parent: nil, idle_ttl_ms: 60_000, success_ttl_ms: 60_000, callback_queue: "cb", description: "",
      callbacks: ["", "", ""])
    ops.push("b1", ["a"], {"work" => [job("a", queue: "work")]})
    redis.call("DEL", BatchKeys::EXPIRIES)
    redis.call("SET", BatchKeys::EXPIRIES, "x")
    refused { ops.failure("b1", "a", "{}") }
    assert_equal 0, redis.call("HLEN", BatchKeys.failed("b1"))
  end

  # A death is counted by its place in the dead jids, so a refusal after it
  # was written would leave the death counted and the batch never told.
  def test_batch_death_counts_the_job_only_with_the_rest_of_its_bookkeeping
    ops = batch_ops
    ops.create("b1", parent: nil, idle_ttl_ms: 60_000, success_ttl_ms: 60_000, callback_queue: "cb", description: "",
      callbacks: ["", "", JSON.generate([["d1", %({"class":"Cb","jid":"d1")]])])
    ops.push("b1", ["a"], {"work" => [job("a", queue: "work")]})
    redis.call("DEL", BatchKeys::EXPIRIES)
    redis.call("SET", BatchKeys::EXPIRIES, "x")
    refused { ops.death("b1", "a", "{}") }
    assert_equal 0, redis.call("SCARD", BatchKeys.dead("b1"))
    redis.call("DEL", BatchKeys::EXPIRIES)
    assert_equal 1, ops.death("b1", "a", "{}"), "the same call, once the key is fixed"
    assert_equal ["a"], redis.call("SMEMBERS", BatchKeys.dead("b1"))
    assert_equal 1, redis.call("LLEN", "queue:cb"), "its death callback fired"
  end

  # Cluster mode's push of fired callbacks, run here on one Redis with the
  # cluster layout's key names.
  def test_batch_callbacks_remember_no_callback_they_could_not_push
    callbacks = Scripts::BatchCallbacks.new(store, now_ms: (Time.now.to_f * 1000).round)
    callbacks.define_singleton_method(:keys) { Deckhand::Store::Layout::Cluster }
    redis.call("SET", "{queue:cb}", "x")
    refused { callbacks.push("cb", [["cb1", job("cb1", queue: "cb")]]) }
    redis.call("DEL", "{queue:cb}")
    assert_equal 1, callbacks.push("cb", [["cb1", job("cb1", queue: "cb")]]), "a callback remembered as pushed would never be pushed"
    assert_equal [job("cb1", queue: "cb")], list("{queue:cb}")
  ensure
    redis.call("DEL", "{queue:cb}", Deckhand::Store::Layout::ClusterBatches.pushed("{queue:cb}"))
  end

  def test_a_concurrent_limiter_holds_no_slot_for_a_check_that_failed
    redis.call("SET", Keys.limit_metrics("api"), "x")
    refused { Scripts::LimitConcurrent.new(store).call("api", 2, holder: "h1", lock_ms: 60_000) }
    assert_equal 0, redis.call("EXISTS", Keys.limit("concurrent", "api"))
  end

  def test_fetch_moves_nothing_when_an_inflight_hash_it_would_write_is_the_wrong_type
    identity = "host:1:live"
    redis.call("LPUSH", "queue:a", job("a1", queue: "a"))
    redis.call("LPUSH", "queue:b", job("b1", queue: "b"))
    redis.call("SET", Keys.inflight(identity, "b"), "x")
    fetch = Scripts::Fetch.new(store, identity: identity, queues: %w[a b])
    refused { fetch.call(limit: 10, sources: [[0, 1], [1, 2]], acks: []) }
    assert_equal [job("a1", queue: "a")], list("queue:a"), "no lot may be filed by a fetch that failed"
    assert_equal [job("b1", queue: "b")], list("queue:b"), "no lot may be filed without its record"
    assert_empty redis.call("KEYS", "deckhand:lot:*")
  end

  def test_fetch_moves_nothing_when_a_recovery_counts_hash_is_the_wrong_type
    identity = "host:1:live"
    redis.call("LPUSH", "queue:a", job("a1", queue: "a"))
    redis.call("SET", Keys.recoveries("a"), "x")
    refused { Scripts::Fetch.new(store, identity: identity, queues: %w[a]).call(limit: 10, sources: [[0, 1]], acks: []) }
    assert_equal [job("a1", queue: "a")], list("queue:a")
    assert_equal [Keys.recoveries("a")], redis.call("KEYS", "deckhand:*")
  end

  # A priority level's list (docs/priority.md) of the wrong type: the fetch
  # reads its length before its first write, so it refuses whole.
  def test_fetch_moves_nothing_when_a_priority_levels_list_is_the_wrong_type
    identity = "host:1:live"
    redis.call("LPUSH", Keys.priority("a", -2), job("u1", queue: "a"))
    redis.call("LPUSH", "queue:a", job("a1", queue: "a"))
    redis.call("SET", Keys.priority("a", 3), "x")
    fetch = Scripts::Fetch.new(store, identity: identity, queues: %w[a])
    sources = [[0, 1, nil, -2], [0, 2], [0, 3, nil, 3]]
    refused { fetch.call(limit: 10, sources: sources, acks: []) }
    assert_equal [[job("u1", queue: "a")], [job("a1", queue: "a")]], [list(Keys.priority("a", -2)), list("queue:a")]
    assert_empty redis.call("KEYS", "deckhand:*")
    redis.call("DEL", Keys.priority("a", 3))
    takes = fetch.call(limit: 10, sources: sources.map { |index, id, *rest| [index, id + 3, *rest] }, acks: [])
    assert_equal [[job("u1", queue: "a")], [job("a1", queue: "a")]], takes.map(&:payloads)
  end

  def test_fetch_acknowledges_and_fetches_when_a_lock_key_is_not_a_lock
    identity = "host:1:live"
    redis.call("LPUSH", "queue:a", job("a1", queue: "a"))
    redis.call("HSET", "unique:x", "not", "a lock")
    takes = Scripts::Fetch.new(store, identity: identity, queues: %w[a])
      .call(limit: 10, sources: [[0, 1]], acks: [], unlocks: [["unique:x", "x", 1000, 0]])
    assert_equal [[job("a1", queue: "a")]], takes.map(&:payloads)
    assert_equal "hash", redis.call("TYPE", "unique:x")
  end

  def test_a_queue_move_takes_and_puts_nothing_when_a_key_is_the_wrong_type
    redis.call("LPUSH", "queue:mail", job("a"))
    redis.call("SET", "queue:mail:moving:batch", "x")
    refused { Scripts::MoveTake.new(store).call("queue:mail", "list", 10, "b1") }
    assert_equal [job("a")], list("queue:mail"), "the job stays in its queue"

    redis.call("DEL", "queue:mail:moving:batch")
    id, *taken = Scripts::MoveTake.new(store).call("queue:mail", "list", 10, "b1")
    redis.call("HSET", "queue:mail2", "x", "1")
    refused { Scripts::MovePut.new(store).call("queue:mail2", "queue:mail2:moved:#{id}", "list", taken, 60) }
    assert_equal 0, redis.call("EXISTS", "queue:mail2:moved:b1"), "no marker for a batch not written"
    assert_equal [job("a")], list("queue:mail:moving:batch"), "the batch stays held"

    redis.call("DEL", "queue:mail2")
    assert_equal 1, Scripts::MovePut.new(store).call("queue:mail2", "queue:mail2:moved:#{id}", "list", taken, 60)
    assert_equal 0, Scripts::MovePut.new(store).call("queue:mail2", "queue:mail2:moved:#{id}", "list", taken, 60)
    assert_equal [job("a")], list("queue:mail2"), "written once"
  end

  # Every key each script touches is declared (ScriptGuard).
  def test_a_fair_queue_move_takes_and_puts_nothing_when_a_key_is_the_wrong_type
    take = Deckhand::ScriptGuard.wrap(Scripts::MoveFairTake).new(store)
    put = Deckhand::ScriptGuard.wrap(Scripts::MoveFairPut).new(store)
    a, b = "a\n#{job("a")}", "a\n#{job("b")}"
    redis.call("ZADD", "queue:r:fair", 1.5, a, 2.5, b)
    redis.call("HSET", "queue:r:tenants", "~vt", "0.5", "n:a", 2, "f:a", "2.5")
    redis.call("SET", "queue:r:fair:moving:batch", "x")
    refused { take.call("queue:r", 10, "b1") }
    assert_equal [a, b], members("queue:r:fair"), "the jobs stay waiting"
    assert_equal "2", redis.call("HGET", "queue:r:tenants", "n:a"), "their tenant's count too"

    redis.call("DEL", "queue:r:fair:moving:batch")
    assert_equal ["b1", "0.5", a, "1.5"], take.call("queue:r", 1, "b1")
    assert_equal({"~vt" => "0.5", "n:a" => "1", "f:a" => "2.5"}, redis.call("HGETALL", "queue:r:tenants"))
    assert_equal ["b1", "0.5", a, "1.5"], take.call("queue:r", 1, "b2"), "the batch held, again"
    redis.call("LPUSH", "queue:r2", job("c")) # the new tag's queue holds a job: the batch waits its turn
    redis.call("HSET", "queue:r2:tenants", "~vt", "10")
    redis.call("SET", "queue:r2:fair", "x")
    refused { put.call("queue:r2", "queue:r2:moved:b1", "0.5", [a, "1.5"], 60) }
    assert_equal 0, redis.call("EXISTS", "queue:r2:moved:b1"), "no marker for a batch not written"
    assert_equal({"~vt" => "10"}, redis.call("HGETALL", "queue:r2:tenants"))

    redis.call("DEL", "queue:r2:fair")
    assert_equal 1, put.call("queue:r2", "queue:r2:moved:b1", "0.5", [a, "1.5"], 60)
    assert_equal [[a, 11.0]], redis.call("ZRANGE", "queue:r2:fair", 0, -1, "WITHSCORES"), "1 ahead of the clock, as before"
    assert_equal({"~vt" => "10", "n:a" => "1", "f:a" => "11"}, redis.call("HGETALL", "queue:r2:tenants"))
    redis.call("DEL", "queue:r2", "queue:r2:fair") # the jobs ran meanwhile
    redis.call("HDEL", "queue:r2:tenants", "n:a", "f:a")
    assert_equal 0, put.call("queue:r2", "queue:r2:moved:b1", "0.5", [a, "1.5"], 60)
    assert_equal 0, redis.call("EXISTS", "queue:r2", "queue:r2:fair"), "written once: a job that ran does not come back"
  end

  private

  def batch_ops = Scripts::BatchOps.new(store, now_ms: (Time.now.to_f * 1000).round, stamp: "1.0")
end
