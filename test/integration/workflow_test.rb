# frozen_string_literal: true

require "test_helper"
require "deckhand/api"
require "deckhand/testing"
require_relative "../support/workflow/workflow_app"
require_relative "../support/workflow/ended"

# Requiring deckhand/testing turned its fake mode on for the whole process: Redis back.
Deckhand::Testing.disable!

# Workflows worked by a real server in this process, on the test's Redis:
# fan-out and fan-in, conditions, cancellation, results read by children
# and awaited by the caller, and a step's outcome told twice.
class WorkflowTest < Minitest::Test
  include Deckhand::WorkflowEnded

  App = WorkflowApp

  def setup
    super
    Deckhand::Testing.disable!
    Deckhand.config = new_config(concurrency: 4, scheduler_interval: 0.02)
    Deckhand::Workflow.install(Deckhand.config)
  end

  def labels = App.runs.map(&:first)

  def states(flow) = Deckhand::Workflow.steps(flow.id).to_h { |jid, step| [jid, step["state"]] }

  def test_fan_out_and_fan_in_run_each_step_once_in_order_and_children_read_their_parents_results
    flow = Deckhand::Workflow.new("import 7")
    first = flow.add(App::Note, "fetch")
    parts = flow.add_many(App::Part, (0...4).map { |i| [7, i] }, after: first)
    merge = flow.add(App::Merge, 7, after: parts)
    flow.add(App::Note, "notify", after: merge, on: :success, name: "notify")
    flow.add(App::Note, "cleanup", after: merge, on: :complete, name: "cleanup")
    assert_equal flow.id, flow.push
    assert_equal 0, redis.call("ZCARD", "retry")
    assert_equal 1, redis.call("LLEN", "queue:default"), "only the step waiting for nothing is released"
    with_server { assert_equal "succeeded", ended(flow)["state"] }
    runs = App.runs
    assert_equal %w[fetch part part part part merge], runs.first(6).map(&:first)
    assert_equal %w[cleanup notify], runs.drop(6).map(&:first).sort
    assert_equal (0...4).map { |i| [7, i] }, runs[1, 4].map(&:last).sort
    assert_equal [7, (0...4).map { |i| {"part" => i, "rows" => 10 * i} }], runs[5].last, "the parts' results, in the order they were added"
    assert_equal [[60], [60]], runs.drop(6).map(&:last), "each child of merge reads its sum"
    status = Deckhand::Workflow.status(flow.id)
    assert_equal %w[8 8 0 0 0 0], status.values_at("total", "succeeded", "failed", "dead", "cancelled", "open")
    assert_equal ["s"] * 8, states(flow).values
    assert_equal 0, redis.call("LLEN", "queue:default")
  end

  def test_a_dead_step_cancels_what_waits_for_its_success_and_releases_what_waits_for_its_end_or_failure
    flow = Deckhand::Workflow.new("doomed")
    fetch = flow.add(App::Doomed, "fetch")
    parse = flow.add(App::Note, "parse", after: fetch, name: "parse")
    merge = flow.add(App::Note, "merge", after: parse, name: "merge")
    flow.add(App::Note, "after-merge", after: merge, on: :complete, name: "after_merge")
    flow.add(App::Note, "alert", after: fetch, on: :failure, name: "alert")
    flow.add(App::Note, "both", after: [fetch, merge], on: :complete, name: "both")
    flow.push
    with_server { assert_equal "failed", ended(flow)["state"] }
    assert_equal %w[after-merge alert both fetch], labels.sort, "parse and merge never ran"
    dead, = zset("dead").first
    assert_equal ["WorkflowApp::Doomed", flow.id], dead.values_at("class", "wf")
    names = Deckhand::Workflow.steps(flow.id).to_h { |_, step| [JSON.parse(step["info"])["name"], step["state"]] }
    assert_equal({"WorkflowApp::Doomed" => "d", "parse" => "c", "merge" => "c", "after_merge" => "s", "alert" => "s", "both" => "s"}, names)
    assert_equal %w[1 2], Deckhand::Workflow.status(flow.id).values_at("dead", "cancelled")
    error = JSON.parse(redis.call("HGET", "deckhand:workflow:#{flow.id}:errors", dead["jid"]))
    assert_equal ["ArgumentError", "fetch fails on purpose"], error.values_at("error_class", "error_message")
  end

  def test_a_dropped_step_is_a_failure_and_a_step_waiting_on_failure_is_cancelled_by_a_success
    flow = Deckhand::Workflow.new("dropped")
    drop = flow.add(App::Dropped, "drop")
    fine = flow.add(App::Note, "fine", name: "fine")
    flow.add(App::Note, "on-drop", after: drop, on: :failure, name: "on_drop")
    flow.add(App::Note, "on-fine-failing", after: fine, on: :failure, name: "on_fine_failing")
    flow.push
    with_server { assert_equal "failed", ended(flow)["state"] }
    assert_equal %w[drop fine on-drop], labels.sort
    assert_equal 0, redis.call("ZCARD", "dead"), "retry: false drops the job"
    assert_equal %w[1 0 1], Deckhand::Workflow.status(flow.id).values_at("failed", "dead", "cancelled")
  end

  def test_a_retrying_step_killed_by_hand_dies_and_an_expired_step_fails_each_releasing_what_waits_for_it
    flow = Deckhand::Workflow.new("killed")
    retried = flow.add(App::Retried, "retried")
    flow.add(App::Note, "on-kill", after: retried, on: :failure, name: "on_kill")
    first = flow.add(App::Note, "first", name: "first")
    late = flow.add(App::Note.set(expires_in: 0.05), "late", after: first, name: "late")
    flow.add(App::Note, "on-expiry", after: late, on: :failure, name: "on_expiry")
    flow.push
    sleep 0.1 # the late step's time to start passes before it is released
    with_server do
      wait_for(message: "the retry") { redis.call("ZCARD", "retry") == 1 }
      assert_equal "y", states(flow)[retried.jid]
      retries = Deckhand::API.new.retries
      assert_equal 1, retries.kill(retries.page(1, 10))
      assert_equal "failed", ended(flow)["state"]
    end
    assert_equal %w[first on-expiry on-kill retried], labels.sort, "the late step expired unrun"
    assert_equal({retried.jid => "d", late.jid => "x"}, states(flow).slice(retried.jid, late.jid))
  end

  # What a process that dies between a step's settle and its job's
  # acknowledgement leaves: its job back in the queue (recovery), its news
  # in Redis. The step does not run again and releases nothing twice.
  def test_a_step_run_again_after_its_success_was_recorded_neither_runs_nor_releases_twice
    flow = Deckhand::Workflow.new("recovered")
    first = flow.add(App::Note, "first", name: "first")
    flow.add(App::Note, "second", after: first, name: "second")
    flow.push
    fetched = redis.call("LINDEX", "queue:default", 0)
    with_server do
      ended(flow)
      redis.call("LPUSH", "queue:default", fetched) # its job again, as recovery hands it back
      wait_for(message: "the copy taken") { redis.call("LLEN", "queue:default").zero? }
      sleep 0.2
    end
    assert_equal %w[first second], labels
    ops = Deckhand::Workflow.ops(Deckhand.config)
    assert_equal "seen", ops.step(flow.id, "s", first.jid, "1"), "a success told twice"
    assert_equal "done", ops.step(flow.id, "r", first.jid)
    assert_equal 0, redis.call("LLEN", "queue:default")
    assert_equal "2", Deckhand::Workflow.status(flow.id)["succeeded"]
  end

  def test_a_caller_waits_for_a_result_with_a_blocking_read_and_learns_of_a_failure
    jid = App::Square.perform_async(12)
    waiter = Thread.new { Deckhand::JobResult.wait(jid, timeout: 20) }
    sleep 0.2 # the waiter is inside Redis before the job runs
    broken = App::Broken.perform_async(1)
    before = monotonic
    with_server do
      assert_equal({"square" => 144}, waiter.value)
      assert_equal({"square" => 144}, Deckhand::JobResult.wait(jid, timeout: 1), "every waiter gets it")
      error = assert_raises(Deckhand::JobFailed) { Deckhand::JobResult.wait(broken, timeout: 20) }
      assert_equal "ArgumentError", error.error_class
    end
    ttl = redis.call("PTTL", "deckhand:result:#{jid}")
    # Kept for the class's 60 s from its end, which came after `before`.
    assert_operator ttl, :>, 60_000 - (monotonic - before) * 1000
    assert_operator ttl, :<=, 60_000
    started = monotonic
    assert_raises(Deckhand::ResultTimeout) { Deckhand::JobResult.wait("nothing", timeout: 0.2) }
    assert_operator monotonic - started, :>=, 0.2
  end

  def test_a_push_is_all_or_nothing_and_a_flow_waits_for_steps_added_before_it
    config = Deckhand.config
    config.max_payload_bytes = 2_000
    flow = Deckhand::Workflow.new("too big")
    flow.add_many(App::Note, Array.new(1_000) { |i| ["n#{i}"] })
    flow.add(App::Note, "x" * 3_000)
    assert_raises(Deckhand::InvalidJob) { flow.push }
    assert_equal 0, redis.call("LLEN", "queue:default"), "no step of a push that failed runs"
    assert_equal "held", Deckhand::Workflow.status(flow.id)["state"]
    other = Deckhand::Workflow.new("other")
    error = assert_raises(ArgumentError) { other.add(App::Note, "late", after: flow.add(App::Note, "y")) }
    assert_match(/no step named "WorkflowApp::Note" in this workflow/, error.message)
    assert_raises(ArgumentError) { other.add(App::Note, "z", on: :sometimes) }
    assert_raises(ArgumentError) { Deckhand::Workflow.new("empty").push }
  end

  def test_the_testing_modes_refuse_a_push_naming_the_fix
    flow = Deckhand::Workflow.new("in a test")
    flow.add(App::Note, "never")
    Deckhand::Testing.fake! do
      error = assert_raises(Deckhand::Error) { flow.push }
      assert_match(/fake and inline modes do not run workflows; .*Deckhand::Testing.disable!/, error.message)
    end
    assert_equal 0, redis.call("EXISTS", "deckhand:workflow:#{flow.id}")
    Deckhand::Testing.disable! { flow.push }
    assert_equal 1, redis.call("LLEN", "queue:default")
  end
end
