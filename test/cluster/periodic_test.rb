# frozen_string_literal: true

require "test_helper"
require "deckhand/server"
require "stringio"
require_relative "../support/cluster_helpers"

# Periodic jobs in cluster mode: the lease and the entries live in the
# {deckhand} slot, each queue in its own, so a tick is recorded (fenced by
# the lease) and then pushed to its queue, once whoever retries or takes
# over.
class ClusterPeriodicTest < Minitest::Test
  include Deckhand::ClusterHelpers

  Scripts = Deckhand::Store::Scripts

  def teardown
    (@loops || []).each { |loop| loop.stop.join(5) }
    super
  end

  def store = Deckhand.config.store

  def lease = Scripts::PeriodicLease.new(store)

  def payload(jid) = JSON.generate({"class" => "RecordJob", "args" => [], "jid" => jid})

  def push(token, tick, queue: "reports")
    Scripts::PeriodicEnqueue.new(store).call(token: token, name: "e", tick: tick, next_tick: tick + 2, queue: queue,
      jid: "j#{tick}", payload: payload("j#{tick}"), now: 100)
  end

  # What a leader that died between recording a tick and pushing it leaves:
  # periodic_enqueue.lua's record alone.
  def record_only(token, tick, queue: "reports")
    store.evalsha(Scripts::PeriodicEnqueue, [keys::PERIODIC_LEADER, keys.periodic("e"), keys::PERIODIC_PENDING],
      [token, tick, tick + 2, 100.0, queue, "j#{tick}", payload("j#{tick}"), "e"])
  end

  def jids(queue = "reports") = jobs_in(queue).map { |job| job["jid"] }

  def pending = cluster.call("HGET", keys.periodic("e"), "pending_jid")

  def test_each_tick_is_enqueued_once_and_only_by_the_lease_holder
    _, token = lease.acquire("a", ttl_ms: 5_000)
    assert_equal :done, push(token, 50) # a new entry: ticks before it was first seen never run
    assert_equal :enqueued, push(token, 102)
    assert_equal :done, push(token, 102)
    assert_equal :done, push(token, 100)
    assert_equal :not_leader, push("1:stale", 104)
    lease.release(token)
    _, other = lease.acquire("b", ttl_ms: 5_000)
    assert_equal :not_leader, push(token, 104)
    assert_equal :enqueued, push(other, 104, queue: "mail")
    assert_equal ["j102"], jids
    assert_equal ["j104"], jids("mail")
    assert_nil pending, "nothing left to push"
    assert_empty cluster.call("SMEMBERS", keys::PERIODIC_PENDING)
    assert_equal %w[mail reports], cluster.call("SMEMBERS", keys::QUEUES).sort
    assert_equal "104", cluster.call("HGET", keys.periodic("e"), "last_tick")
  end

  def test_an_entry_s_history_lives_in_the_fleet_s_slot
    history = Scripts::PeriodicHistory.new(store)
    assert history.call(name: "e", record: {"tick" => 102, "state" => "enqueued", "jid" => "j102"}, first: true)
    assert history.call(name: "e", record: {"tick" => 102, "state" => "succeeded", "jid" => "j102"})
    assert_equal "{deckhand}:periodic:history:e", keys.periodic_history("e")
    assert_equal [[102, "succeeded"]], Scripts::PeriodicHistory.read(store, ["e"]).first.map { |r| r.values_at("tick", "state") }
  end

  def test_a_tick_recorded_by_a_leader_that_died_is_pushed_once_by_the_next
    _, dead = lease.acquire("dead", ttl_ms: 5_000)
    push(dead, 50)
    assert_equal 1, record_only(dead, 102)
    assert_equal "j102", pending
    assert_empty jids, "recorded, not pushed: the leader died in between"
    lease.release(dead)
    _, token = lease.acquire("next", ttl_ms: 5_000)
    assert_equal :done, push(token, 102), "the tick is recorded: not taken again"
    assert_equal ["j102"], jids, "but its push is completed first"
    assert_equal :enqueued, push(token, 104)
    assert_equal ["j104", "j102"], jids
  end

  def test_a_push_completed_twice_enqueues_the_job_once
    _, token = lease.acquire("a", ttl_ms: 5_000)
    push(token, 50)
    record_only(token, 102)
    # The leader pushed, then died before clearing the record (or its reply was lost).
    assert Scripts::PeriodicPush.new(store).call(queue: "reports", name: "e", tick: 102, jid: "j102", payload: payload("j102"))
    assert_equal 0, Deckhand::Store::Features::PeriodicTicks.complete(store), "a second process finds it pushed"
    refute Scripts::PeriodicPush.new(store).call(queue: "reports", name: "e", tick: 100, jid: "j100", payload: payload("j100")),
      "an older tick is never pushed after a newer one"
    assert_equal ["j102"], jids
    assert_nil pending
    assert_equal "102", cluster.call("GET", keys.periodic_pushed("reports", "e"))
    assert_equal cluster.call("CLUSTER", "KEYSLOT", keys.queue("reports")),
      cluster.call("CLUSTER", "KEYSLOT", keys.periodic_pushed("reports", "e"))
  end

  def test_two_loops_contending_enqueue_every_tick_once
    config = new_config
    config.periodic { |cron| cron.register("* * * * * *", "RecordJob", queue: "reports", name: "every-second") }
    first = start_loop(config, "one")
    wait_for(message: "a leader") { first.leader? }
    second = start_loop(config, "two")
    wait_for(message: "three ticks") { ticks.size >= 3 }
    refute second.leader?
    first.stop.join(5)
    wait_for(message: "the second loop to take over") { second.leader? }
    count = ticks.size
    wait_for(message: "ticks from the new leader") { ticks.size >= count + 3 }
    second.stop.join(5)
    list = ticks
    assert_equal list.uniq, list, "a tick was enqueued twice"
    assert_equal list.sort, list
    assert_empty cluster.call("SMEMBERS", keys::PERIODIC_PENDING)
  end

  def test_a_new_leader_completes_a_push_left_pending_for_an_entry_it_does_not_know
    _, dead = lease.acquire("dead", ttl_ms: 5_000)
    push(dead, 50)
    record_only(dead, 102, queue: "mail")
    lease.release(dead)
    log = StringIO.new
    config = new_config
    config.logger = ::Logger.new(log)
    config.periodic { |cron| cron.register("0 3 * * *", "RecordJob", queue: "reports", name: "nightly") }
    start_loop(config, "next")
    wait_for(message: "the pending push completed") { jids("mail") == ["j102"] }
    assert_nil pending
    assert_includes log.string, "pushed 1 tick(s) recorded before"
  end

  private

  def start_loop(config, identity)
    loop = Deckhand::Server::Chores::PeriodicLoop.new(config: config, store: store, identity: identity, lease: 1)
    (@loops ||= []) << loop
    loop.start
  end

  def ticks = jobs_in("reports").map { |job| job["periodic_at"] }.reverse
end
