# frozen_string_literal: true

require "test_helper"
require "stringio"

# The periodic loop and its scripts against a real Redis, in this process.
class PeriodicLoopTest < Minitest::Test
  def teardown
    (@loops || []).each { |loop| loop.stop.join(5) }
    super
  end

  def store = Deckhand::RedisHarness.store

  def periodic_config(log: nil, &block)
    config = new_config
    config.logger = ::Logger.new(log) if log
    config.periodic(&block)
    config
  end

  def start_loop(config, identity, lease: 1)
    loop = Deckhand::Server::Chores::PeriodicLoop.new(config: config, store: store, identity: identity, lease: lease)
    (@loops ||= []) << loop
    loop.start
  end

  def ticks(queue = "ticks") = jobs_in(queue).map { |job| job["periodic_at"] }.reverse

  def lease = Deckhand::Store::Scripts::PeriodicLease.new(store)

  def enqueue = Deckhand::Store::Scripts::PeriodicEnqueue.new(store)

  def push(token, tick, jid: "j#{tick}")
    enqueue.call(token: token, name: "e", tick: tick, next_tick: tick + 2, queue: "ticks", jid: jid,
      payload: JSON.generate({"class" => "X", "args" => [], "jid" => jid}), now: 100)
  end

  def test_the_lease_has_one_holder_with_a_growing_fence
    held, first = lease.acquire("a", ttl_ms: 5_000)
    assert held
    refute lease.acquire("b", ttl_ms: 5_000).first
    assert lease.renew(first, ttl_ms: 5_000).first
    refute lease.renew("9:b", ttl_ms: 5_000).first
    refute lease.release("9:b").first
    assert lease.release(first).first
    held, second = lease.acquire("b", ttl_ms: 5_000)
    assert held
    assert_operator second.to_i, :>, first.to_i
    assert_equal "b", Deckhand::Store::Features::PeriodicState.leader(store)
  end

  def test_each_tick_is_enqueued_once_and_only_by_the_lease_holder
    _, token = lease.acquire("a", ttl_ms: 5_000)
    assert_equal :done, push(token, 50) # a new entry: ticks before it was first seen never run
    assert_equal :enqueued, push(token, 102)
    assert_equal :done, push(token, 102) # a retry, or a second leader that reached the lease
    assert_equal :done, push(token, 100) # an older tick, late
    assert_equal :not_leader, push("1:stale", 104)
    # The lease passes to another holder: the old one's token no longer works.
    lease.release(token)
    _, other = lease.acquire("b", ttl_ms: 5_000)
    assert_equal :not_leader, push(token, 104)
    assert_equal :done, push(other, 102)
    assert_equal :enqueued, push(other, 104)
    assert_equal ["j104", "j102"], jobs_in("ticks").map { |job| job["jid"] }
    assert_equal "104", redis.call("HGET", "deckhand:periodic:entry:e", "last_tick")
  end

  def test_a_paused_entry_enqueues_nothing_and_its_ticks_pass
    _, token = lease.acquire("a", ttl_ms: 5_000)
    push(token, 50)
    Deckhand::Store::Features::PeriodicState.pause(store, "e")
    assert_equal :paused, push(token, 102)
    Deckhand::Store::Features::PeriodicState.resume(store, "e")
    assert_equal :done, push(token, 102) # not run late after a resume
    assert_equal :enqueued, push(token, 104)
    assert_equal [104], jobs_in("ticks").map { |job| job["jid"][1..].to_i }
  end

  def test_two_loops_enqueue_every_tick_once_and_hand_over_on_stop
    events = []
    hook = Deckhand::Lifecycle.on(:leader) { |leading| events << leading }
    config = periodic_config { |cron| cron.register("* * * * * *", "RecordJob", queue: "ticks", name: "every-second") }
    first = start_loop(config, "one")
    wait_for(message: "a leader") { first.leader? }
    second = start_loop(config, "two")
    wait_for(message: "Deckhand.leader?") { Deckhand.leader? }
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
    assert_equal [true, false, true, false], events
    assert_equal ["RecordJob"], jobs_in("ticks").map { |job| job["class"] }.uniq
  ensure
    Deckhand::Lifecycle.off(:leader, hook)
  end

  def test_a_process_whose_schedule_differs_warns_naming_the_difference
    leader = periodic_config { |cron| cron.register("* * * * * *", "RecordJob", queue: "ticks") }
    start_loop(leader, "leader")
    wait_for(message: "the schedule in Redis") { Deckhand::Store::Features::PeriodicState.schedule(store) }
    log = StringIO.new
    other = periodic_config(log: log) do |cron|
      cron.register("*/5 * * * * *", "RecordJob", queue: "ticks")
      cron.register("0 2 * * *", "NightlyJob")
    end
    start_loop(other, "other")
    wait_for(message: "a warning") { log.string.include?("differs from the leader's") }
    assert_includes log.string, "RecordJob: cron \"*/5 * * * * *\" here, \"* * * * * *\" on the leader"
    assert_includes log.string, "NightlyJob: only here"
  end

  # A cron with one tick a year, `ago` seconds before now.
  def yearly_cron(ago)
    at = Time.now.utc - ago
    [at.to_i, "#{at.sec} #{at.min} #{at.hour} #{at.day} #{at.month} *"]
  end

  def test_a_missed_tick_runs_once_if_younger_than_the_grace_period
    due, cron = yearly_cron(120)
    redis.call("HSET", "deckhand:periodic:entry:yearly", "since", due - 3 * 365 * 86_400)
    config = periodic_config do |periodic|
      periodic.grace = 300
      periodic.register(cron, "RecordJob", queue: "ticks", name: "yearly", tz: "UTC")
    end
    start_loop(config, "one")
    wait_for(message: "the missed tick") { ticks.size == 1 }
    assert_equal [due], ticks
    @loops.first.stop.join(5)
    start_loop(config, "two") # a new leader finds it done
    wait_for(message: "the new leader") { Deckhand::Store::Features::PeriodicState.leader(store) == "two" }
    wait_for(message: "its first round") { redis.call("HGET", "deckhand:periodic:entry:yearly", "next").to_i > due }
    assert_equal [due], ticks
  end

  def test_a_tick_older_than_the_grace_period_is_not_run
    due, cron = yearly_cron(400)
    redis.call("HSET", "deckhand:periodic:entry:yearly", "since", due - 3 * 365 * 86_400)
    config = periodic_config do |periodic|
      periodic.grace = 300
      periodic.register(cron, "RecordJob", queue: "ticks", name: "yearly", tz: "UTC")
    end
    start_loop(config, "one")
    wait_for(message: "the leader's first round") { redis.call("HGET", "deckhand:periodic:entry:yearly", "next").to_i > due }
    assert_empty ticks
  end

  def test_many_missed_ticks_make_one_run_not_a_backlog
    started = Time.now.to_i
    redis.call("HSET", "deckhand:periodic:entry:minutely", "since", started - 600) # ten missed minutes
    config = periodic_config { |periodic| periodic.register("* * * * *", "RecordJob", queue: "ticks", name: "minutely") }
    start_loop(config, "one")
    wait_for(message: "the latest missed tick") { ticks.size >= 1 }
    @loops.first.stop.join(5)
    assert_operator ticks.size, :<=, 2, "a backlog of missed ticks ran" # 2 if a minute turned meanwhile
    assert_includes [started / 60 * 60, started / 60 * 60 + 60], ticks.first
  end

  class RefuseBoom
    def call(_klass, job, _queue, _redis)
      raise ArgumentError, "middleware refused" if job["args"] == ["boom"]
      yield
    end
  end

  def test_a_job_that_cannot_be_built_costs_its_tick_not_the_loop
    log = StringIO.new
    config = periodic_config(log: log) do |periodic|
      periodic.register("* * * * * *", "RecordJob", queue: "boom", args: ["boom"], name: "boom")
      periodic.register("* * * * * *", "RecordJob", queue: "ticks", name: "fine")
    end
    config.client_middleware.add(RefuseBoom)
    loop = start_loop(config, "one")
    wait_for(message: "two ticks of the healthy entry") { ticks.size >= 2 }
    assert_includes log.string, "periodic boom: could not build RecordJob's job"
    assert_includes log.string, "ArgumentError: middleware refused"
    assert loop.alive?
    assert_empty jobs_in("boom")
  end

  def test_a_class_s_own_options_apply_and_the_queue_given_wins
    config = periodic_config do |periodic|
      periodic.register("* * * * *", "FailJob", name: "own")
      periodic.register("* * * * *", "FailJob", queue: "other", name: "given")
      periodic.register("* * * * *", "Elsewhere::Job", name: "unknown")
    end
    builder = Deckhand::Periodic::JobBuilder.new(config)
    own, given, unknown = %w[own given unknown].map { |name| builder.build(config.periodic[name]) }
    assert_equal ["default", 2], own.values_at("queue", "retry")
    assert_equal ["other", 2], given.values_at("queue", "retry")
    assert_equal ["Elsewhere::Job", "default", true], unknown.values_at("class", "queue", "retry")
  end

  def test_a_late_leader_catches_up_its_own_ticks_but_a_new_one_runs_only_the_latest
    config = periodic_config { |periodic| periodic.register("*/2 * * * * *", "RecordJob", name: "e", tz: "UTC") }
    loop = Deckhand::Server::Chores::PeriodicLoop.new(config: config, store: store, identity: "one")
    entry = config.periodic["e"]
    assert_equal [1_006], loop.send(:pending, entry, 1_007.5) # just took over
    loop.instance_variable_get(:@tried)["e"] = 1_000
    assert_equal [1_002, 1_004, 1_006], loop.send(:pending, entry, 1_007.5) # overslept, still leading
    assert_equal [], loop.send(:pending, entry, 1_001)
    assert_equal [1_100], loop.send(:pending, entry, 1_100) # far too many: the latest only
  end
end
