# frozen_string_literal: true

require "test_helper"
require "deckhand/workflow"
require_relative "../../../../support/script_guard"

# The workflow scripts (workflow/*.lua), run behind a guard that fails any
# call on a key WorkflowOps did not declare: a step is released once, a
# second news of an end changes nothing, and a refused write changes
# nothing before the same call, repeated once the key is fixed, releases
# what it should, once.
class WorkflowOpsTest < Minitest::Test
  GuardedOps = Deckhand::ScriptGuard.wrap(Deckhand::Store::Scripts::WorkflowOps)

  class StepJob
    include Deckhand::Job

    def perform(*) = nil
  end

  def ops = GuardedOps.new(Deckhand.config.store, now_ms: (Time.now.to_f * 1000).round, stamp: Deckhand::Payload.now)

  # Writes `flow` through the guarded scripts, as Workflow#push does.
  def push(flow)
    graph = flow.instance_variable_get(:@graph)
    ops.create(flow.id, description: "test", ttl_ms: 60_000, done_ttl_ms: 60_000)
    steps = graph.encoded(graph.records, flow.id, Deckhand.config.max_payload_bytes)
    assert_equal "ok", ops.add(flow.id, steps, queues: %w[default other], start: true)
  end

  def state(flow, ref) = redis.call("HGET", "deckhand:workflow:#{flow.id}:state", ref.jid)

  def test_a_step_is_released_once_and_a_second_end_changes_nothing
    flow = Deckhand::Workflow.new("once")
    root = flow.add(StepJob, 1)
    other = flow.add(StepJob, 2)
    kid = flow.add(StepJob, 3, after: [root, other])
    push(flow)
    assert_equal [root.jid, other.jid].sort, jobs_in("default").map { |job| job["jid"] }.sort
    assert_equal [flow.id] * 2, jobs_in("default").map { |job| job["wf"] }
    assert_equal "run", ops.step(flow.id, "r", root.jid)
    assert_equal "ok", ops.step(flow.id, "s", root.jid, "1")
    assert_equal "seen", ops.step(flow.id, "s", root.jid, "1")
    assert_equal "w", state(flow, kid), "it waits for its other parent"
    assert_equal "ok", ops.step(flow.id, "s", other.jid, "2")
    assert_equal "seen", ops.step(flow.id, "d", other.jid, "{}"), "an end told after another changes nothing"
    assert_equal 1, jobs_in("default").count { |job| job["jid"] == kid.jid }
    assert_equal "done", ops.step(flow.id, "r", root.jid), "a succeeded step does not run again"
    assert_equal "ok", ops.step(flow.id, "s", kid.jid, "3")
    assert_equal "succeeded", JSON.parse(redis.call("LINDEX", "deckhand:workflow:#{flow.id}:done", 0))["state"]
  end

  # A diamond under a step that died: retried, the step undoes its end
  # down the graph, each step waiting for its open parents once, and its
  # success releases each once. A step cancelled by hand stays cancelled,
  # and so does one another failed parent cancels; one its death released
  # keeps its one release.
  def test_a_dead_step_started_again_undoes_its_end_down_the_graph
    flow = Deckhand::Workflow.new("reopened")
    root = flow.add(StepJob, 1)
    other = flow.add(StepJob, 2)
    pending = flow.add(StepJob, 3)
    left = flow.add(StepJob, 4, after: root)
    right = flow.add(StepJob, 5, after: root)
    join = flow.add(StepJob, 6, after: [left, right])
    by_hand = flow.add(StepJob, 7, after: root)
    released = flow.add(StepJob, 8, after: [root, other], on: :complete)
    waiting = flow.add(StepJob, 9, after: [root, pending], on: :complete)
    failed = flow.add(StepJob, 10)
    two = flow.add(StepJob, 11, after: [root, failed])
    push(flow)
    assert_equal "ok", ops.step(flow.id, "s", other.jid, "2")
    assert_equal "ok", ops.step(flow.id, "x", failed.jid, "{}")
    assert_equal "ok", ops.step(flow.id, "d", root.jid, "{}")
    steps = [left, right, join, by_hand, released, waiting, two]
    assert_equal %w[c c c c q w c], steps.map { |ref| state(flow, ref) }
    redis.call("HSET", "deckhand:workflow:#{flow.id}:errors", by_hand.jid, "{}") # as Client.cancel records it
    assert_equal "run", ops.step(flow.id, "r", root.jid)
    assert_equal %w[w w w c q w c], steps.map { |ref| state(flow, ref) }
    waits = redis.call("HMGET", "deckhand:workflow:#{flow.id}:wait", left.jid, right.jid, join.jid, waiting.jid)
    assert_equal %w[1 1 2 2], waits
    assert_equal %w[running 0], redis.call("HMGET", "deckhand:workflow:#{flow.id}", "state", "dead")
    assert_equal "ok", ops.step(flow.id, "s", root.jid, "1")
    assert_equal %w[q q w c q w c], steps.map { |ref| state(flow, ref) }
    assert_equal 1, jobs_in("default").count { |job| job["jid"] == released.jid }, "released once"
    [left, right].each { |ref| ops.step(flow.id, "s", ref.jid, "1") }
    assert_equal 1, jobs_in("default").count { |job| job["jid"] == join.jid }
  end

  # Cancelled by hand: what has not started never runs; a step running
  # then that fails does not run its retry; the workflow ends cancelled.
  def test_a_workflow_cancelled_by_hand_ends_once_its_running_steps_end_and_runs_no_retry
    flow = Deckhand::Workflow.new("cancelled")
    running = flow.add(StepJob, 1)
    queued = flow.add(StepJob, 2)
    kid = flow.add(StepJob, 3, after: running, on: :complete)
    push(flow)
    assert_equal "run", ops.step(flow.id, "r", running.jid)
    assert_equal 2, ops.cancel(flow.id)
    assert_equal %w[r c c], [running, queued, kid].map { |ref| state(flow, ref) }
    assert_equal "cancelled", ops.step(flow.id, "r", queued.jid), "its job, taken from the queue, does not run"
    assert_equal "ok", ops.step(flow.id, "y", running.jid)
    assert_equal "running", redis.call("HGET", "deckhand:workflow:#{flow.id}", "state")
    assert_equal "cancelled", ops.step(flow.id, "r", running.jid), "its retry does not run"
    assert_equal %w[cancelled 3 0], redis.call("HMGET", "deckhand:workflow:#{flow.id}", "state", "cancelled", "open")
    assert_equal "cancelled", JSON.parse(redis.call("LINDEX", "deckhand:workflow:#{flow.id}:done", 0))["state"]
    assert_equal :ended, ops.cancel(flow.id)
  end

  def test_a_queue_of_the_wrong_type_refuses_the_release_with_nothing_changed
    flow = Deckhand::Workflow.new("refused")
    root = flow.add(StepJob, 1)
    kid = flow.add(StepJob.set(queue: "other"), 2, after: root)
    cancelled = flow.add(StepJob, 3, after: root, on: :failure)
    push(flow)
    redis.call("SET", "queue:other", "not a list")
    before = redis.call("HGETALL", "deckhand:workflow:#{flow.id}")
    error = assert_raises(Deckhand::CommandError) { ops.step(flow.id, "s", root.jid, "1") }
    assert_match(/queue:other.*nothing was changed/, error.message)
    assert_equal before, redis.call("HGETALL", "deckhand:workflow:#{flow.id}")
    assert_equal %w[q w w], [root, kid, cancelled].map { |ref| state(flow, ref) }
    redis.call("DEL", "queue:other")
    assert_equal "ok", ops.step(flow.id, "s", root.jid, "1")
    assert_equal [kid.jid], jobs_in("other").map { |job| job["jid"] }
    assert_equal %w[s q c], [root, kid, cancelled].map { |ref| state(flow, ref) }
  end

  # A running step's add, through the guard: every key it touches (a new
  # queue's too) is declared, and told again it adds nothing.
  def test_a_running_steps_add_declares_its_keys_and_adds_each_step_once
    flow = Deckhand::Workflow.new("grown")
    adder = flow.add(StepJob, 1)
    after = flow.add(StepJob, 2, after: adder)
    push(flow)
    assert_equal "run", ops.step(flow.id, "r", adder.jid)
    graph = Deckhand::Workflow::Graph.new(Deckhand.config, outside: ->(ref) { ref.jids }, next_jid: -> { SecureRandom.hex(12) })
    added = graph.add(StepJob.set(queue: "third"), [[3], [4]], after: adder, on: :success, name: "added", graft: true)
    steps = graph.encoded(graph.records, flow.id, Deckhand.config.max_payload_bytes, by: adder.jid)
    assert_equal 2, ops.add_from(flow.id, adder.jid, steps, queues: ["third"])
    assert_equal 0, ops.add_from(flow.id, adder.jid, steps, queues: ["third"]), "told again"
    assert_equal "3", redis.call("HGET", "deckhand:workflow:#{flow.id}:wait", after.jid), "the adder and the two it grafted"
    assert_equal "ok", ops.step(flow.id, "s", adder.jid, "1")
    assert_equal added.jids.sort, jobs_in("third").map { |job| job["jid"] }.sort
    added.jids.each { |jid| ops.step(flow.id, "s", jid, "1") }
    assert_equal [after.jid], jobs_in("default").map { |job| job["jid"] } - [adder.jid]
    assert_equal "not_running", ops.add_from(flow.id, adder.jid, steps, queues: ["third"])
  end
end
