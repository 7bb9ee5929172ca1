# frozen_string_literal: true

require "test_helper"
require "deckhand/batch"
require "deckhand/testing"
require_relative "../support/workflow/step_kinds_app"
require_relative "../support/workflow/ended"

# Requiring deckhand/testing turned its fake mode on for the whole process: Redis back.
Deckhand::Testing.disable!

# Steps are ordinary jobs: a chunked class's steps run in one chunk and each
# member ends its own step with its own result; a step over a limiter's
# limit is rescheduled as the same step, released and ended once; a unique
# class or a batch's jobs block is refused at the add, naming the fix.
class WorkflowStepKindsTest < Minitest::Test
  include Deckhand::WorkflowEnded

  App = StepKindsApp

  def setup
    super
    Deckhand::Testing.disable!
    Deckhand.config = new_config(concurrency: 4, scheduler_interval: 0.02)
    Deckhand::Workflow.install(Deckhand.config)
  end

  def runs(label) = WorkflowApp.runs.select { |run, _| run == label }.map(&:last)

  def names(flow) = Deckhand::Workflow.steps(flow.id).to_h { |_, step| [JSON.parse(step["info"])["name"], step["state"]] }

  def test_each_member_of_a_chunk_ends_its_own_step_with_its_own_result
    flow = Deckhand::Workflow.new("tally")
    fetch = flow.add(WorkflowApp::Note, "fetch", name: "fetch")
    tally = flow.add_many(App::Tally, (0...4).zip, after: fetch, name: "tally")
    flow.add(WorkflowApp::Note, "sum", after: tally, on: :complete, name: "sum")
    flow.add(WorkflowApp::Note, "alert", after: tally, on: :failure, name: "alert")
    flow.add(WorkflowApp::Note, "next", after: tally, name: "next")
    flow.push
    with_server { assert_equal "failed", ended(flow)["state"] }
    assert_equal [[0], [1], [2], [3]], runs("chunk").flatten(1).sort, "each member ran once, in a chunk"
    assert_equal [[{"n" => 0}, {"n" => 10}, {"n" => 20}, nil]], runs("sum"), "each member's own result, in order; the dead one's nil"
    assert_empty runs("next"), "a member died: the step waiting for all of them to succeed is cancelled"
    assert_empty runs("alert"), "three succeeded: the step waiting for all of them to fail is cancelled"
    states = Deckhand::Workflow.steps(flow.id).values.select { |step| JSON.parse(step["info"])["name"] == "tally" }.map { |step| step["state"] }
    assert_equal %w[d s s s], states.sort
    assert_equal %w[8 5 1 2], Deckhand::Workflow.status(flow.id).values_at("total", "succeeded", "dead", "cancelled")
    member = Deckhand::Workflow.steps(flow.id).find { |_, step| step["state"] == "s" && JSON.parse(step["info"])["name"] == "tally" }.first
    assert_includes [{"n" => 0}, {"n" => 10}, {"n" => 20}], Deckhand::JobResult.wait(member, timeout: 1), "result: keeps a member's own value"
  end

  def test_a_step_over_its_limit_is_rescheduled_as_the_same_step_and_ends_once
    flow = Deckhand::Workflow.new("limited")
    first = flow.add(App::Limited, "a", "EVERY_SECOND", name: "a")
    second = flow.add(App::Limited, "b", "EVERY_SECOND", name: "b")
    flow.add(WorkflowApp::Note, "after", after: [first, second], name: "after")
    flow.push
    with_server { assert_equal "succeeded", ended(flow)["state"] }
    assert_equal [["a"], ["b"]], runs("pass").sort, "each step passed the limiter once"
    assert_operator runs("try").size, :>, 2, "one of them was over the limit and tried again"
    assert_equal [[["a passed", "b passed"]]].map(&:first), runs("after"), "the step after them ran once, with both results"
    assert_equal({"a" => "s", "b" => "s", "after" => "s"}, names(flow))
    assert_equal %w[3 3 0], Deckhand::Workflow.status(flow.id).values_at("total", "succeeded", "failed")
  end

  def test_a_step_rescheduled_over_its_limit_is_released_again_so_a_cancel_keeps_it_from_running
    flow = Deckhand::Workflow.new("limited, cancelled")
    flow.add(App::Limited, "a", "EVERY_MINUTE", name: "a")
    flow.add(App::Limited, "b", "EVERY_MINUTE", name: "b")
    flow.push
    with_server do
      wait_for(message: "a step rescheduled over the limit") { runs("pass").size == 1 && names(flow).values.sort == %w[q s] }
      assert_equal 1, Deckhand::Workflow.cancel(flow.id), "the rescheduled step had not started: cancelled"
      assert_equal "cancelled", ended(flow, timeout: 5)["state"]
      over = (%w[a b] - runs("pass").flatten).first
      wait_for(message: "the rescheduled job taken") { redis.call("ZCARD", "schedule").zero? && redis.call("LLEN", "queue:default").zero? }
      sleep 0.2 # had it run, it would have recorded its try by now
      assert_equal 1, runs("try").count([over]), "the cancelled step never tried again"
    end
    assert_equal 1, runs("pass").size
    assert_equal %w[c s], names(flow).values.sort
  end

  def test_a_step_of_a_workflow_cancelled_while_it_ran_that_goes_over_its_limit_is_cancelled_at_once
    App::SPENT.within_limit { nil }
    flow = Deckhand::Workflow.new("cancelled, then over the limit")
    step = flow.add(App::OverAfterCancel, flow.id, name: "step")
    flow.add(WorkflowApp::Note, "after", after: step, name: "after")
    flow.push
    with_server do
      wait_for(message: "the step running") { runs("waits").size == 1 }
      assert_equal 1, Deckhand::Workflow.cancel(flow.id), "the step after it"
      assert_equal "cancelled", ended(flow, timeout: 5)["state"], "ended as the running step went back to the schedule"
      assert_equal({"step" => "c", "after" => "c"}, names(flow))
      wait_for(message: "the rescheduled job taken") { redis.call("ZCARD", "schedule").zero? && redis.call("LLEN", "queue:default").zero? }
      sleep 0.2 # had it run, it would have recorded its run by now
    end
    assert_equal [[]], runs("waits"), "its job was dropped unrun when it came due"
    assert_empty runs("passed")
  end

  def test_steps_in_a_throttled_queue_run_one_at_a_time_each_once
    config = new_config(concurrency: 4, queues: %w[default exports], throttle: {"exports" => {concurrency: 1}})
    Deckhand::Workflow.install(config)
    flow = Deckhand::Workflow.new("throttled", config: config)
    exports = flow.add_many(App::Export, (0...3).zip, name: "exports")
    flow.add(WorkflowApp::Note, "after", after: exports, name: "after")
    flow.push
    with_server(config) { assert_equal "succeeded", ended(flow)["state"] }
    assert_equal [[0, 1], [1, 1], [2, 1]], runs("export").sort, "each ran once, alone"
    assert_equal [[0, 1, 2]], runs("after")
  end

  def test_a_unique_class_is_refused_at_the_add_and_runs_as_a_step_without_its_lock
    flow = Deckhand::Workflow.new("unique")
    error = assert_raises(ArgumentError) { flow.add(App::Unique, "u") }
    assert_includes error.message, "StepKindsApp::Unique is a unique job (unique_for: 600)"
    assert_includes error.message, "StepKindsApp::Unique.set(unique_for: false)"
    assert_raises(ArgumentError) { flow.add_many(App::Unique, [["u"]]) }
    first = flow.add(App::Unique.set(unique_for: false), "u", name: "u")
    flow.add(App::Unique.set(unique_for: false), "u", after: first, name: "again")
    flow.push
    with_server { assert_equal "succeeded", ended(flow)["state"] }
    assert_equal %w[u u], WorkflowApp.runs.map(&:first)
    assert_empty redis.call("KEYS", "unique:*")
  end

  def test_keywords_for_a_deckhand_job_are_refused_at_the_add_naming_the_fix
    flow = Deckhand::Workflow.new("keywords")
    error = assert_raises(ArgumentError) { flow.add(WorkflowApp::Note, "x", tag: "v") }
    assert_includes error.message, "WorkflowApp::Note: keywords (tag:) are for an Active Job class's perform"
    assert_includes error.message, "pass a Hash with String keys"
    assert_raises(ArgumentError) { flow.add_many(WorkflowApp::Note, [Deckhand::Workflow.args("x", after: "v")]) }
    positional = Deckhand::Workflow.args("x", {"tag" => "v"})
    assert_equal ["x", {"tag" => "v"}], positional
    assert_instance_of Hash, positional.last, "a Hash given as a Hash is an arg"
    assert_equal Deckhand::Workflow::Keywords.new(tag: "v"), Deckhand::Workflow.args("x", tag: "v").last
    assert_equal 1, flow.add_many(WorkflowApp::Note, [positional]).jids.size, "a String-keyed Hash is an arg"
  end

  def test_a_step_cannot_join_a_batch_and_says_so_where_it_is_added_or_pushed
    batch = Deckhand::Batch.new
    flow = Deckhand::Workflow.new("in a batch")
    error = assert_raises(ArgumentError) { batch.jobs { flow.add(WorkflowApp::Note, "x") } }
    assert_includes error.message, "WorkflowApp::Note: a workflow step cannot join a batch"
    assert_includes error.message, "push the workflow outside the block"
    flow.add(WorkflowApp::Note, "x")
    error = assert_raises(ArgumentError) { batch.jobs { flow.push } }
    assert_includes error.message, "workflow #{flow.id}: a workflow step cannot join a batch"
    assert_nil Deckhand::Workflow.status(flow.id), "nothing was written"
    assert_equal flow.id, flow.push, "pushed outside the block"
  end
end
