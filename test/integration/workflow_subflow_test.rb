# frozen_string_literal: true

require "test_helper"
require "deckhand/api"
require "deckhand/testing"
require_relative "../support/workflow/workflow_app"

# Deckhand.config's fake mode, turned on by requiring deckhand/testing, off.
Deckhand::Testing.disable!

# Sub-workflows (Workflow#add_workflow), worked by a real server in this
# process: a dependent runs once after every step in it ended as it asks and
# reads their results; a failure, a cancel and a retry travel through it;
# steps added at run time inside it stay in it.
class WorkflowSubflowTest < Minitest::Test
  App = WorkflowApp

  # Adds a step after itself, not grafted, and records how many it added.
  class LooseAdder
    include Deckhand::Job

    def perform(label)
      flow = Deckhand::Workflow.current
      flow.add(App::Note, "#{label}-loose", after: flow.step, name: "loose", graft: false)
      App.ran(label, [flow.push])
      label
    end
  end

  # Tries to add a step waiting for `name`, and records why it was refused.
  class NamingAdder
    include Deckhand::Job

    def perform(label, name)
      flow = Deckhand::Workflow.current
      flow.add(App::Note, "#{label}-never", after: name, graft: false)
      flow.push
    rescue ArgumentError => e
      App.ran(label, [e.message])
      label
    end
  end

  # Adds a gated step named `label` waiting for the steps named `name`, not grafted.
  class LateAdder
    include Deckhand::Job

    def perform(label, name)
      flow = Deckhand::Workflow.current
      flow.add(App::Gated, label, after: name, name: label, graft: false)
      App.ran("adder", [flow.push])
      "adder"
    end
  end

  def setup
    super
    Deckhand::Testing.disable!
    Deckhand.config = new_config(concurrency: 4, scheduler_interval: 0.02)
    Deckhand::Workflow.install(Deckhand.config)
  end

  def labels = App.runs.map(&:first)

  def by_label(flow)
    Deckhand::Workflow.steps(flow.id).to_h { |_, step| [JSON.parse(step["info"])["name"], step["state"]] }
  end

  def test_a_dependent_runs_once_after_every_step_of_the_sub_workflow_and_reads_their_results
    part = Deckhand::Workflow.new("part 7")
    a = part.add(App::Note, "a", name: "a")
    part.add(App::Note, "b", after: a, name: "b")
    part.add(App::Part, 7, 1)
    flow = Deckhand::Workflow.new("import")
    fetch = flow.add(App::Note, "fetch", name: "fetch")
    sub = flow.add_workflow(part, after: fetch)
    merge = flow.add(App::Note, "merge", after: sub, name: "merge")
    flow.add(App::Note, "done", after: merge, name: "done")
    flow.push
    assert_equal "part-7", sub.name
    assert_equal 1, redis.call("LLEN", "queue:default"), "the sub-workflow's steps wait for the step before it"
    with_server { assert_equal "succeeded", flow.wait(timeout: 20)["state"] }
    runs = App.runs
    assert_equal "fetch", runs.first.first
    assert_equal %w[a b part], runs[1, 3].map(&:first).sort
    assert_equal ["merge", ["a", "b", {"part" => 1, "rows" => 10}]], runs[4], "what each step of the sub-workflow returned, in the order added"
    assert_equal ["done", ["merge"]], runs[5]
    assert_equal 6, runs.size, "each step ran once"
    assert_equal %w[6 6 0], Deckhand::Workflow.status(flow.id).values_at("total", "succeeded", "open"), "the sub-workflow is not counted as a step"
    assert_equal "s", by_label(flow)["part-7"]
    assert_equal 0, redis.call("LLEN", "queue:default")
  end

  def test_a_sub_workflow_in_a_sub_workflow_holds_back_its_dependent_until_the_innermost_step_ends
    leaf = Deckhand::Workflow.new("leaf")
    leaf.add(App::Gated, "deep")
    middle = Deckhand::Workflow.new("middle")
    first = middle.add(App::Note, "first", name: "first")
    middle.add_workflow(leaf, after: first)
    flow = Deckhand::Workflow.new("nested")
    sub = flow.add_workflow(middle)
    flow.add(App::Note, "after", after: sub, name: "after")
    flow.push
    with_server do
      wait_for(message: "the innermost step running") { labels.include?("deep") }
      sleep 0.2
      assert_equal %w[first deep], labels, "the dependent waits for the innermost step"
      assert_equal({"middle" => "w", "leaf" => "w", "after" => "w"}, by_label(flow).slice("middle", "leaf", "after"))
      App.open_gate("deep")
      assert_equal "succeeded", flow.wait(timeout: 20)["state"]
    end
    assert_equal ["after", ["first", "deep"]], App.runs.last, "the nested sub-workflow's steps are the outer one's, each once"
    assert_equal({"middle" => "s", "leaf" => "s", "after" => "s"}, by_label(flow).slice("middle", "leaf", "after"))
  end

  def test_a_failed_step_decides_the_dependents_once_every_step_of_the_sub_workflow_ended
    part = Deckhand::Workflow.new("part")
    doomed = part.add(App::Doomed, "doomed")
    part.add(App::Note, "parse", after: doomed, name: "parse")
    part.add(App::Gated, "slow")
    flow = Deckhand::Workflow.new("failing")
    sub = flow.add_workflow(part)
    ok = flow.add(App::Note, "ok", after: sub, name: "ok")
    flow.add(App::Note, "after-ok", after: ok, name: "after_ok")
    flow.add(App::Note, "on-failure", after: sub, on: :failure, name: "on_failure")
    flow.add(App::Note, "on-complete", after: sub, on: :complete, name: "on_complete")
    flow.push
    with_server do
      wait_for(message: "the death") { by_label(flow)["WorkflowApp::Doomed"] == "d" }
      sleep 0.2
      assert_equal %w[doomed slow], labels.sort, "nothing after the sub-workflow runs while a step in it runs"
      assert_equal({"parse" => "c", "part" => "w", "ok" => "w", "on_failure" => "w"}, by_label(flow).slice("parse", "part", "ok", "on_failure"))
      App.open_gate("slow")
      assert_equal "failed", flow.wait(timeout: 20)["state"]
    end
    assert_equal %w[doomed on-complete on-failure slow], labels.sort
    assert_equal({"part" => "x", "ok" => "c", "after_ok" => "c", "on_failure" => "s", "on_complete" => "s"},
      by_label(flow).slice("part", "ok", "after_ok", "on_failure", "on_complete"))
    assert_equal %w[1 3], Deckhand::Workflow.status(flow.id).values_at("dead", "cancelled"), "parse, ok and after-ok cancelled"
  end

  def test_a_cancel_travels_into_and_out_of_a_sub_workflow
    part = Deckhand::Workflow.new("part")
    parse = part.add(App::Note, "parse", name: "parse")
    part.add(App::Note, "index", after: parse, name: "index")
    part.add(App::Note, "tidy", after: parse, on: :complete, name: "tidy")
    flow = Deckhand::Workflow.new("cancelled before")
    fetch = flow.add(App::Doomed, "fetch")
    sub = flow.add_workflow(part, after: fetch)
    flow.add(App::Note, "merge", after: sub, name: "merge")
    flow.add(App::Note, "cleanup", after: sub, on: :complete, name: "cleanup")
    flow.push
    with_server { assert_equal "failed", flow.wait(timeout: 20)["state"] }
    assert_equal %w[cleanup fetch tidy], labels.sort, "the tidy step runs whatever happened to parse, as in any workflow"
    assert_equal({"parse" => "c", "index" => "c", "tidy" => "s", "part" => "c", "merge" => "c", "cleanup" => "s"},
      by_label(flow).slice("parse", "index", "tidy", "part", "merge", "cleanup"))

    App.call("DEL", "app:runs")
    part = Deckhand::Workflow.new("part")
    part.add(App::Note, "later", after: part.add(App::Gated, "running"), name: "later")
    flow = Deckhand::Workflow.new("cancelled by hand")
    sub = flow.add_workflow(part)
    flow.add(App::Note, "merge", after: sub, on: :complete, name: "merge")
    flow.push
    with_server do
      wait_for(message: "the gated step running") { labels.include?("running") }
      assert_equal 2, Deckhand::Workflow.cancel(flow.id), "the two steps waiting; the sub-workflow is not counted"
      App.open_gate("running")
      assert_equal "cancelled", flow.wait(timeout: 20)["state"]
    end
    assert_equal({"later" => "c", "part" => "c", "merge" => "c", "WorkflowApp::Gated" => "s"}, by_label(flow).slice("later", "part", "merge", "WorkflowApp::Gated"))
    refute_includes labels, "merge"
  end

  def test_a_dead_step_retried_by_hand_reopens_its_sub_workflow_and_its_dependent_runs_once
    part = Deckhand::Workflow.new("part")
    flaky = part.add(App::DiesFirst, "flaky")
    part.add(App::Note, "parse", after: flaky, name: "parse")
    flow = Deckhand::Workflow.new("resumed")
    sub = flow.add_workflow(part)
    flow.add(App::Note, "merge", after: sub, name: "merge")
    flow.add(App::Note, "alert", after: sub, on: :failure, name: "alert")
    flow.push
    with_server do
      assert_equal "failed", flow.wait(timeout: 20)["state"]
      assert_equal({"parse" => "c", "part" => "x", "merge" => "c", "alert" => "s"}, by_label(flow).slice("parse", "part", "merge", "alert"))
      dead = Deckhand::API.new.dead
      assert_equal 1, dead.retry([dead.find_jid(flaky.jid)])
      wait_for(message: "the second end") { Deckhand::Workflow.status(flow.id)["state"] == "succeeded" }
    end
    assert_equal %w[flaky alert flaky parse merge], labels, "alert ran on the death, once; the rest once after the retry"
    assert_equal({"parse" => "s", "part" => "s", "merge" => "s", "alert" => "s"}, by_label(flow).slice("parse", "part", "merge", "alert"))
    assert_equal ["merge", ["flaky", "parse"]], App.runs.last
  end

  # The step added at run time is the dead step's kid after the
  # sub-workflow: the retry revives the sub-workflow first, and it must
  # still wait for that step, revived after it.
  def test_a_retry_reopens_a_sub_workflow_holding_a_step_added_after_the_death
    part = Deckhand::Workflow.new("part")
    flaky = part.add(App::DiesFirst, "flaky", name: "flaky")
    part.add(LateAdder, "late", "flaky", after: flaky, on: :failure)
    flow = Deckhand::Workflow.new("late")
    sub = flow.add_workflow(part)
    flow.add(App::Note, "merge", after: sub, name: "merge")
    flow.push
    with_server do
      assert_equal "failed", flow.wait(timeout: 20)["state"]
      assert_equal({"late" => "c", "part" => "x", "merge" => "c"}, by_label(flow).slice("late", "part", "merge"), "late was cancelled as it was added")
      dead = Deckhand::API.new.dead
      assert_equal 1, dead.retry([dead.find_jid(flaky.jid)])
      wait_for(message: "the revived step running") { labels.include?("late") }
      sleep 0.2
      refute_includes labels, "merge", "the sub-workflow waits for the step its retry revived"
      App.open_gate("late")
      wait_for(message: "the second end") { Deckhand::Workflow.status(flow.id)["state"] == "succeeded" }
    end
    assert_equal %w[flaky adder flaky late merge], labels, "merge ran after the revived step, once"
    assert_equal ["merge", ["flaky", "adder", "late"]], App.runs.last
  end

  def test_steps_added_at_run_time_inside_a_sub_workflow_stay_in_it_grafted_or_not
    part = Deckhand::Workflow.new("part")
    part.add(App::Splitter, 9, 2)
    part.add(LooseAdder, "loose")
    flow = Deckhand::Workflow.new("grown")
    sub = flow.add_workflow(part)
    flow.add(App::Note, "after", after: sub, name: "after")
    flow.push
    with_server { assert_equal "succeeded", flow.wait(timeout: 20)["state"] }
    runs = App.runs
    assert_equal "after", runs.last.first, "the dependent ran after every step added inside the sub-workflow"
    assert_equal %w[after loose loose-loose part part split tally], runs.map(&:first).sort
    results = runs.last.last
    assert_equal 6, results.size, "splitter, loose adder, their two parts, tally and the loose step"
    assert_includes results, "loose-loose"
    assert_includes results, {"part" => 1, "rows" => 10}
    assert_equal "7", Deckhand::Workflow.status(flow.id)["total"]
  end

  def test_a_step_inside_a_sub_workflow_may_not_add_a_step_waiting_for_what_waits_for_it
    part = Deckhand::Workflow.new("part")
    part.add(NamingAdder, "inside", "part")
    part.add(NamingAdder, "outside", "outer")
    flow = Deckhand::Workflow.new("refused")
    sub = flow.add_workflow(part)
    flow.add(App::Note, "outer", after: sub, name: "outer")
    flow.push
    with_server { assert_equal "succeeded", flow.wait(timeout: 20)["state"] }
    why = App.runs.to_h { |label, args| [label, args.first] }
    assert_match(/step \h+ waits for @part, which is outside the sub-workflow the adding step is in: .*nothing was changed/, why["inside"])
    assert_match(/waits for @outer, which is outside the sub-workflow/, why["outside"])
    assert_equal %w[3 3], Deckhand::Workflow.status(flow.id).values_at("total", "succeeded"), "nothing was added"
  end

  def test_a_sub_workflow_is_added_once_not_pushed_and_not_changed_after
    part = Deckhand::Workflow.new("part")
    flow = Deckhand::Workflow.new("outer")
    assert_raises(ArgumentError) { flow.add_workflow(part) }
    part.add(App::Note, "x")
    assert_raises(ArgumentError) { flow.add_workflow(flow) }
    assert_raises(ArgumentError) { flow.add_workflow(part, name: "two words") }
    flow.add_workflow(part)
    error = assert_raises(ArgumentError) { Deckhand::Workflow.new("other").add_workflow(part) }
    assert_match(/is a sub-workflow of #{flow.id} already/, error.message)
    assert_raises(Deckhand::Error) { part.push }
    assert_raises(Deckhand::Error) { part.add(App::Note, "y") }
    pushed = Deckhand::Workflow.new("pushed")
    pushed.add(App::Note, "z")
    pushed.push
    assert_match(/was pushed/, assert_raises(Deckhand::Error) { flow.add_workflow(pushed) }.message)
    other = Deckhand::Workflow.new("elsewhere", config: new_config)
    other.add(App::Note, "w")
    assert_match(/another config/, assert_raises(ArgumentError) { flow.add_workflow(other) }.message)
  end
end
