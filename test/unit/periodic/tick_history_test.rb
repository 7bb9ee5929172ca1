# frozen_string_literal: true

require "test_helper"
require "stringio"
require "deckhand/api"

# A periodic entry's history against a real Redis: its last 20 ticks, newest
# first, one record per tick; the leader's first record never hides a
# server's later one; the leader records what it enqueued and what it
# skipped, and why.
class PeriodicTickHistoryTest < Minitest::Test
  def teardown
    (@loops || []).each { |loop| loop.stop.join(5) }
    super
  end

  def store = Deckhand::RedisHarness.store

  def script = Deckhand::Store::Scripts::PeriodicHistory.new(store)

  def history(name = "e") = Deckhand::Store::Scripts::PeriodicHistory.read(store, [name]).first

  def write(tick, state, first: false) = script.call(name: "e", record: {"tick" => tick, "state" => state}, first: first)

  def test_one_record_per_tick_newest_first_and_a_first_record_never_replaces_a_later_one
    assert write(100, "running") # the server started the job before the leader's write arrived
    refute write(100, "enqueued", first: true)
    assert write(300, "enqueued", first: true)
    assert write(200, "skipped", first: true) # a late record goes where its tick belongs
    assert write(100, "succeeded")
    assert_equal [[300, "enqueued"], [200, "skipped"], [100, "succeeded"]], history.map { |r| [r["tick"], r["state"]] }
  end

  def test_keeps_the_last_20_ticks_and_no_tick_older_than_those
    25.times { |i| write(1_000 + i, "enqueued", first: true) }
    ticks = history.map { |r| r["tick"] }
    assert_equal (1_005..1_024).to_a.reverse, ticks
    refute write(1_001, "failed"), "a retry of a tick the history no longer keeps"
    assert write(1_006, "failed")
    assert_equal 20, redis.call("LLEN", "deckhand:periodic:history:e")
    assert_equal "failed", history.find { |r| r["tick"] == 1_006 }["state"]
  end

  def test_a_key_of_another_type_is_refused_with_nothing_changed
    redis.call("SET", "deckhand:periodic:history:e", "mine")
    error = assert_raises(Deckhand::RedisError) { write(100, "enqueued") }
    assert_match(/Deckhand keeps a list at key "deckhand:periodic:history:e"/, error.message)
    assert_equal "mine", redis.call("GET", "deckhand:periodic:history:e")
  end

  def test_a_refused_write_is_logged_and_dropped
    log = StringIO.new
    redis.call("SET", "deckhand:periodic:history:e", "mine")
    tick_history = Deckhand::Periodic::TickHistory.new(store, ::Logger.new(log))
    refute tick_history.skipped("e", 100, "paused")
    assert_includes log.string, "periodic e: the history of tick 100 (skipped) was not written"
  end

  def periodic_config(&block)
    config = new_config
    config.periodic(&block)
    config
  end

  def start_loop(config, identity)
    loop = Deckhand::Server::Chores::PeriodicLoop.new(config: config, store: store, identity: identity, lease: 1)
    (@loops ||= []) << loop
    loop.start
  end

  def api = Deckhand::API.new(new_config)

  def test_the_leader_records_each_tick_it_enqueues_with_its_job
    config = periodic_config { |periodic| periodic.register("* * * * * *", "RecordJob", queue: "ticks", name: "e") }
    start_loop(config, "one")
    wait_for(message: "two ticks") { jobs_in("ticks").size >= 2 }
    @loops.first.stop.join(5)
    jobs = jobs_in("ticks").to_h { |job| [job["periodic_at"], job["jid"]] }
    recorded = history.to_h { |r| [r["tick"], r["jid"]] }
    assert_equal jobs, recorded
    assert_equal ["enqueued"], history.map { |r| r["state"] }.uniq
    assert_equal ["ticks"], history.map { |r| r["queue"] }.uniq
    ticks = api.periodic.fetch("e").history # the API reads the same, newest first
    assert_equal jobs.keys.sort.reverse, ticks.map { |t| t.at.to_i }
    assert_equal [["enqueued", "ticks"]], ticks.map { |t| [t.state, t.queue] }.uniq
    assert_equal jobs.values.sort, ticks.map(&:jid).sort
  end

  def test_the_leader_records_a_paused_tick_and_a_missed_one_as_skipped_with_why
    redis.call("HSET", "deckhand:periodic:entry:e", "since", 1, "paused", 1)
    due = Time.now.utc - 400
    cron = "#{due.sec} #{due.min} #{due.hour} #{due.day} #{due.month} *"
    config = periodic_config do |periodic|
      periodic.grace = 300
      periodic.register("* * * * * *", "RecordJob", queue: "ticks", name: "e")
      periodic.register(cron, "RecordJob", queue: "ticks", name: "yearly", tz: "UTC")
    end
    redis.call("HSET", "deckhand:periodic:entry:yearly", "since", due.to_i - 86_400)
    start_loop(config, "one")
    wait_for(message: "a paused tick") { history.any? }
    wait_for(message: "the missed tick") { history("yearly").any? }
    @loops.first.stop.join(5)
    assert_equal [["skipped", "paused"]], history.map { |r| [r["state"], r["reason"]] }.uniq
    missed = history("yearly")
    assert_equal 1, missed.size
    assert_equal due.to_i, missed.first["tick"]
    assert_match(/\Amissed: 40\d s late, past the grace of 300 s\z/, missed.first["reason"])
    assert_empty jobs_in("ticks")
    start_loop(config, "two") # a new leader finds the missed tick recorded: not twice
    wait_for(message: "the new leader's first round") { Deckhand::Store::Features::PeriodicState.leader(store) == "two" && history.size > 3 }
    assert_equal 1, history("yearly").size
  end

  def test_a_tick_the_last_leader_enqueued_is_not_called_missed_by_the_next
    due = Time.now.utc - 400
    cron = "#{due.sec} #{due.min} #{due.hour} #{due.day} #{due.month} *"
    redis.call("HSET", "deckhand:periodic:entry:yearly", "since", due.to_i - 86_400, "last_tick", due.to_i) # enqueued before the history existed
    config = periodic_config do |periodic|
      periodic.grace = 300
      periodic.register(cron, "RecordJob", queue: "ticks", name: "yearly", tz: "UTC")
    end
    start_loop(config, "one")
    wait_for(message: "the leader's first round") { redis.call("HGET", "deckhand:periodic:entry:yearly", "next").to_i > due.to_i }
    assert_empty history("yearly")
  end
end
