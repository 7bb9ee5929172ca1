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
end
