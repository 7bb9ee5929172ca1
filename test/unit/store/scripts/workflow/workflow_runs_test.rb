# frozen_string_literal: true

require "test_helper"
require "deckhand/workflow"
require_relative "../../../../support/script_guard"

# A step's retry and put-back news apply to the run that told them: news
# told late, once another server started the step again (its job handed
# back at a shutdown and taken by another process), changes nothing, so a
# cancel cannot cancel the step while it runs and its success counts.
class WorkflowRunsTest < Minitest::Test
  GuardedOps = Deckhand::ScriptGuard.wrap(Deckhand::Store::Scripts::WorkflowOps)

  class StepJob
    include Deckhand::Job

    def perform(*) = nil
  end

  def ops = GuardedOps.new(Deckhand.config.store, now_ms: (Time.now.to_f * 1000).round, stamp: Deckhand::Payload.now)

  def push(flow)
    graph = flow.instance_variable_get(:@graph)
    ops.create(flow.id, description: "test", ttl_ms: 60_000, done_ttl_ms: 30_000)
    steps = graph.encoded(graph.records, flow.id, Deckhand.config.max_payload_bytes)
    assert_equal "ok", ops.add(flow.id, steps, queues: %w[default], start: true)
  end

  def state(flow, ref) = redis.call("HGET", "deckhand:workflow:#{flow.id}:state", ref.jid)

  def meta(flow, *fields) = redis.call("HMGET", "deckhand:workflow:#{flow.id}", *fields)

  def test_a_late_put_back_of_an_earlier_run_leaves_the_step_running_and_a_cancel_spares_it
    flow = Deckhand::Workflow.new("late put-back")
    step = flow.add(StepJob, 1)
    push(flow)
    assert_equal "run", ops.step(flow.id, "r", step.jid, "run-a")
    assert_equal "run", ops.step(flow.id, "r", step.jid, "run-b"), "another process took the handed-back job"
    assert_equal "stale_run", ops.step(flow.id, "q", step.jid, "run-a")
    assert_equal "stale_run", ops.step(flow.id, "y", step.jid, "run-a")
    assert_equal "r", state(flow, step)
    assert_equal 0, ops.cancel(flow.id), "a running step is not cancelled"
    assert_equal "ok", ops.step(flow.id, "s", step.jid, "42")
    assert_equal %w[cancelled 1 0], meta(flow, "state", "succeeded", "cancelled")
    assert_equal "42", redis.call("HGET", "deckhand:workflow:#{flow.id}:results", step.jid)
  end

  def test_the_put_back_of_the_run_last_started_applies
    flow = Deckhand::Workflow.new("put back")
    step = flow.add(StepJob, 1)
    push(flow)
    ops.step(flow.id, "r", step.jid, "run-a")
    ops.step(flow.id, "r", step.jid, "run-b")
    assert_equal "ok", ops.step(flow.id, "q", step.jid, "run-b")
    assert_equal "q", state(flow, step)
    assert_equal "run", ops.step(flow.id, "r", step.jid, "run-c")
    assert_equal "ok", ops.step(flow.id, "y", step.jid, "run-c")
    assert_equal "y", state(flow, step)
  end

  # A server from before run tokens tells none: its news applies as it did.
  def test_news_without_a_token_applies_as_before
    flow = Deckhand::Workflow.new("untokened")
    step = flow.add(StepJob, 1)
    push(flow)
    ops.step(flow.id, "r", step.jid, "run-a")
    assert_equal "ok", ops.step(flow.id, "q", step.jid)
    assert_equal "q", state(flow, step)
  end

  # Pushed before runs were kept: the runs hash the first start makes
  # takes the workflow's TTL, and the ending's TTL with the other keys.
  def test_the_runs_of_a_workflow_pushed_before_them_expire_with_it
    flow = Deckhand::Workflow.new("older")
    step = flow.add(StepJob, 1)
    push(flow)
    runs = "deckhand:workflow:#{flow.id}:runs"
    assert_operator redis.call("PTTL", runs), :>, 0, "made at the push, with its TTL"
    redis.call("DEL", runs)
    assert_equal "run", ops.step(flow.id, "r", step.jid, "run-a")
    assert_in_delta redis.call("PTTL", "deckhand:workflow:#{flow.id}"), redis.call("PTTL", runs), 1000
    assert_equal "ok", ops.step(flow.id, "s", step.jid, "1")
    assert_equal "succeeded", meta(flow, "state").first
    assert_operator redis.call("PTTL", runs), :<=, 30_000, "the ended workflow's TTL"
  end
end
