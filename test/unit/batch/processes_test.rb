# frozen_string_literal: true

require_relative "../../support/batch/batch_helper"
require_relative "../../e2e/e2e_helper"
require "support/reliability_helpers"

# Batches across real `deckhand` processes: the last two jobs finishing at the
# same instant on two processes, a process SIGKILLed in a batch job, and one
# SIGKILLed as a batch job dies.
class BatchProcessesTest < Minitest::Test
  include Deckhand::BatchHelpers
  include Deckhand::E2EHelpers
  include Deckhand::ReliabilityHelpers

  APP = File.expand_path("../../support/batch/apps/batch_app.rb", __dir__)
  TTL = 1
  REAPER_INTERVAL = 0.2

  def setup
    super
    @config = config_file("heartbeat_interval: 0.2\nheartbeat_ttl: #{TTL}\nscheduler_interval: 0.05\n")
  end

  # Each process works its own queue, so each holds one of the two jobs; both
  # wait at a gate the test opens for both in one transaction.
  def test_two_processes_finishing_a_batch_at_the_same_instant_fire_each_callback_once
    left = worker("-q", "left", "-q", "default")
    right = worker("-q", "right", "-q", "default")
    rounds = 10
    bids = Array.new(rounds) do |n|
      batch = Deckhand::Batch.new
      batch.on(:success, BatchApp::Callbacks)
      batch.on(:complete, BatchApp::Callbacks)
      batch.jobs do
        BatchApp::Gate.set(queue: "left").perform_async("#{n}L")
        BatchApp::Gate.set(queue: "right").perform_async("#{n}R")
      end
      wait_for(message: "round #{n}'s jobs at their gates") { (["#{n}L", "#{n}R"] - arrived.map(&:first)).empty? }
      redis.multi do |tx|
        tx.call("LPUSH", "app:gate:#{n}L", "go")
        tx.call("LPUSH", "app:gate:#{n}R", "go")
      end
      batch.bid
    end
    wait_for_callbacks(2 * rounds)
    pids = arrived.to_h
    rounds.times { |n| assert_equal [left.pid, right.pid], pids.values_at("#{n}L", "#{n}R"), "round #{n} ran in one process" }
    [left, right].each { |cli| cli.signal("TERM") }
    [left, right].each { |cli| assert_equal 0, cli.wait_exit(timeout: 10).exitstatus }
    assert_all_ran
    assert_equal bids.sort, callbacks("success").map { |c| c["bid"] }.sort
    assert_equal bids.sort, callbacks("complete").map { |c| c["bid"] }.sort
    assert callbacks("success").all? { |c| c["runs"] >= 2 && c["pending"].zero? }
  end

  # Recovery is the reaper's: the survivor notices the dead process's expired
  # heartbeat and puts its in-flight job back; the job runs again, counted once.
  def test_a_batch_job_sigkilled_mid_run_is_recovered_and_the_batch_succeeds_once
    wait_for_redis_uptime(TTL)
    victim = worker("-q", "left")
    batch = Deckhand::Batch.new
    batch.on(:success, BatchApp::Callbacks)
    jids = batch.jobs do
      BatchApp::Gate.set(queue: "left").perform_async("victim")
      5.times { |i| BatchApp::Work.perform_async("w#{i}") }
    end
    wait_for(message: "the job to start in the victim") { arrived == [["victim", victim.pid]] }
    survivor = worker("-q", "left", "-q", "default")
    wait_for(message: "the other jobs") { runs.size == 5 }
    victim.signal("KILL")
    assert_equal "KILL", Signal.signame(victim.wait_exit(timeout: 5).termsig)
    refute batch.status.success?
    # The bound on recovery is a torture figure (bin/torture sigkill-churn), not
    # this test's: on a loaded machine the survivor's threads wait for a core.
    wait_for(timeout: 30, message: "the job to start again in the survivor") do
      arrived.include?(["victim", survivor.pid])
    end
    redis.call("LPUSH", "app:gate:victim", "go")
    wait_for_callbacks(1)
    survivor.signal("TERM")
    assert_equal 0, survivor.wait_exit(timeout: 10).exitstatus
    assert_all_ran
    assert_equal [[batch.bid, 6, 0, 6]], callbacks.map { |c| c.values_at("bid", "total", "pending", "runs") }
    assert_nil recoveries(jids.first, queue: "left"), "a recovered job that succeeded leaves no count behind"
  end

  # SIGKILLed right after the job's dead-set write, before any death
  # handler ran: the batch was told of the death before that write.
  def test_a_process_killed_right_after_a_batch_job_s_dead_write_leaves_the_death_on_the_batch_s_books
    wait_for_redis_uptime(TTL)
    batch, jid = doomed_batch
    victim = worker("-q", "left", kill: "after_dead_write")
    assert_equal "KILL", Signal.signame(victim.wait_exit(timeout: 10).termsig)

    assert_equal [jid], zset("dead").map { |job, _| job["jid"] }
    status = batch.status
    assert_equal [jid], status.dead_jids, "the batch's books name the death"
    assert status.death?
    assert status.complete?
    assert_equal 2, redis.call("LLEN", "queue:default"), "its complete and death callbacks wait in their queue"

    finish_with_survivor
    assert_equal %w[complete death], callbacks.map { |c| c["event"] }.sort
    assert_equal [jid], zset("dead").map { |job, _| job["jid"] }, "the dead job did not run again"
  end

  # SIGKILLed after the batch was told, before the dead-set write: the job
  # is still in the process's in-flight record, recovered, run and dead
  # again, and its death counted once.
  def test_a_process_killed_before_a_batch_job_s_dead_write_leaves_it_to_die_again_counted_once
    wait_for_redis_uptime(TTL)
    batch, jid = doomed_batch
    victim = worker("-q", "left", kill: "before_dead_write")
    assert_equal "KILL", Signal.signame(victim.wait_exit(timeout: 10).termsig)

    assert_equal 0, redis.call("ZCARD", "dead"), "killed before the dead-set write"
    assert_equal [jid], inflight_payloads(victim.identity, ["left"]).map { |raw| JSON.parse(raw)["jid"] }
    assert_equal [jid], batch.status.dead_jids

    finish_with_survivor
    assert_equal [jid], zset("dead").map { |job, _| job["jid"] }, "recovered, run again and dead once"
    assert_equal %w[complete death], callbacks.map { |c| c["event"] }.sort, "each callback fired once"
    status = batch.status
    assert_equal [jid], status.dead_jids
    assert_equal 1, status.failures
  end

  private

  def worker(*args, kill: nil)
    env = {"BATCH_APP_REAPER_INTERVAL" => REAPER_INTERVAL.to_s}
    env["BATCH_APP_KILL"] = kill if kill
    cli = deckhand("-C", @config, "-c", "2", *args, app: APP, env: env)
    cli.identity
    cli
  end

  # A batch of one job that dies on its first failure, waiting in queue "left".
  def doomed_batch
    batch = Deckhand::Batch.new
    %i[complete death].each { |event| batch.on(event, BatchApp::Callbacks) }
    jids = batch.jobs { BatchApp::Doomed.set(queue: "left").perform_async("doomed") }
    [batch, jids.first]
  end

  # A second process recovers what the victim left and runs the callbacks.
  def finish_with_survivor
    survivor = worker("-q", "left", "-q", "default")
    wait_for(timeout: 30, message: "the victim recovered, its job dead and both callbacks run") do
      redis.call("HLEN", keys::OWNERS) == 1 && redis.call("ZCARD", "dead") == 1 && callbacks.size >= 2
    end
    survivor.signal("TERM")
    assert_equal 0, survivor.wait_exit(timeout: 10).exitstatus
    assert_all_ran
  end

  def arrived = redis.call("LRANGE", "app:arrived", 0, -1).map { |entry| entry.split(" ").then { |label, pid| [label, pid.to_i] } }
end
