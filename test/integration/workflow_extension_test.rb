# frozen_string_literal: true

require "test_helper"
require "deckhand/testing"
require_relative "../support/workflow/workflow_app"
require_relative "../support/workflow/ended"

# Deckhand.config's fake mode, turned on by requiring deckhand/testing, off.
Deckhand::Testing.disable!

# Steps a running step adds to its own workflow (Deckhand::Workflow.current):
# a fan-out decided at run time and the fan-in after it, an add told again
# by a rerun of the step, and what an add does at once: release, cancel,
# graft, refuse.
class WorkflowExtensionTest < Minitest::Test
  include Deckhand::WorkflowEnded

  App = WorkflowApp

  def setup
    super
    Deckhand::Testing.disable!
    Deckhand.config = new_config(concurrency: 4, scheduler_interval: 0.02)
    Deckhand::Workflow.install(Deckhand.config)
  end

  def steps(flow) = Deckhand::Workflow.steps(flow.id)

  def by_name(flow) = steps(flow).values.group_by { |step| JSON.parse(step["info"])["name"] }.transform_values { |list| list.map { |step| step["state"] } }

  def split_flow(once)
    flow = Deckhand::Workflow.new("split")
    fetch = flow.add(App::Note, "fetch", name: "fetch")
    split = flow.add(App::Splitter, 7, 3, once, after: fetch)
    merge = flow.add(App::Merge, 7, after: split)
    flow.add(App::Note, "done", after: merge, name: "done")
    flow.push
    [flow, merge]
  end

  def test_a_fan_out_decided_by_a_running_step_runs_before_the_fan_in_that_waits_for_the_step
    flow, merge = split_flow(nil)
    with_server { assert_equal "succeeded", ended(flow)["state"] }
    labels = App.runs.map(&:first)
    assert_equal "fetch", labels.first
    assert_equal %w[part part part split tally], labels[1, 5].sort, "the split records its add as its parts may start"
    assert_equal [7, 4], App.runs.assoc("split").last, "the parts and the tally, added in one call"
    assert_equal %w[merge done], labels.drop(6), "the merge after the splitter waited for what it grafted"
    assert_equal [7, (0...3).map { |i| {"part" => i, "rows" => 10 * i} }], App.runs.assoc("merge").last, "the merge reads the grafted parts' results"
    assert_equal 1 + 3 + 1, steps(flow)[merge.jid]["parents"].split.size, "the splitter, its parts and its tally"
    assert_equal %w[8 8 0], Deckhand::Workflow.status(flow.id).values_at("total", "succeeded", "open")
  end

  # Adds and never pushes: its adds are written as perform returns.
  class Sprout
    include Deckhand::Job

    def perform(n)
      WorkflowApp.ran("sprout", [])
      Deckhand::Workflow.current.add_many(WorkflowApp::Part, (0...n).map { |i| [8, i] })
      n
    end
  end

  def test_steps_added_and_not_pushed_are_written_before_the_steps_success
    flow = Deckhand::Workflow.new("sprout")
    sprout = flow.add(Sprout, 2)
    flow.add(App::Merge, 8, after: sprout)
    flow.push
    with_server { assert_equal "succeeded", ended(flow)["state"] }
    assert_equal %w[sprout part part merge], App.runs.map(&:first)
    assert_equal [8, [{"part" => 0, "rows" => 0}, {"part" => 1, "rows" => 10}]], App.runs.last.last
  end

  # Adds a grafted step after its own dependent: refused as perform returns.
  class LoopingAdder
    include Deckhand::Job

    deckhand_options retry: 0

    def perform = Deckhand::Workflow.current.add(WorkflowApp::Note, "loop", after: "merge")
  end

  def test_an_add_refused_as_perform_returns_fails_the_step_and_adds_nothing
    flow = Deckhand::Workflow.new("refused")
    adder = flow.add(LoopingAdder)
    flow.add(App::Note, "merge", after: adder, name: "merge")
    flow.push
    with_server { assert_equal "failed", ended(flow)["state"] }
    dead, = zset("dead").first
    assert_equal "ArgumentError", dead["error_class"]
    assert_match(/waits for @merge, which it may not, grafted/, dead["error_message"])
    assert_equal %w[2 1 1], Deckhand::Workflow.status(flow.id).values_at("total", "dead", "cancelled"), "nothing added; merge cancelled"
    assert_empty App.runs
  end

  def test_a_rerun_of_the_adding_step_adds_nothing_twice
    flow, = split_flow("fail")
    with_server { assert_equal "succeeded", ended(flow)["state"] }
    runs = App.runs
    assert_equal [[7, 4], [7, 0]], runs.filter_map { |label, args| args if label == "split" }, "the rerun's add found its steps there"
    assert_equal %w[done fetch merge part part part split split tally], runs.map(&:first).sort, "each added step ran once"
    assert_equal %w[8 8], Deckhand::Workflow.status(flow.id).values_at("total", "succeeded")
    assert_equal 0, redis.call("LLEN", "queue:default")
  end

  # The adding step is made to run by hand (the scripts a server calls),
  # so each add's effect is read before anything else runs.
  def running_flow
    flow = Deckhand::Workflow.new("by hand")
    fetch = flow.add(App::Note, "fetch", name: "fetch")
    adder = flow.add(App::Note, "adder", after: fetch, name: "adder")
    merge = flow.add(App::Note, "merge", after: adder, name: "merge")
    cleanup = flow.add(App::Note, "cleanup", after: adder, on: :complete, name: "cleanup")
    flow.push
    ops = Deckhand::Workflow.ops(Deckhand.config)
    ops.step(flow.id, "r", fetch.jid)
    ops.step(flow.id, "s", fetch.jid, "1")
    assert_equal "run", ops.step(flow.id, "r", adder.jid)
    redis.call("DEL", "queue:default")
    [flow, Deckhand::Workflow::Extension.new(flow.id, adder.jid, "adder", Deckhand.config), merge, cleanup]
  end

  def test_an_added_step_is_released_at_once_cancelled_at_once_or_waits_and_a_grafted_one_holds_back_the_dependents
    flow, ext, merge, cleanup = running_flow
    now = ext.add(App::Note, "now", after: "fetch", name: "now")
    ext.add(App::Note, "alarm", after: "fetch", on: :failure, name: "alarm", graft: false)
    ext.add(App::Note, "sweep", after: "alarm", on: :complete, name: "sweep", graft: false)
    later = ext.add(App::Note, "later", after: ext.step, name: "later")
    assert_equal 4, ext.push
    assert_equal({"now" => ["q"], "alarm" => ["c"], "sweep" => ["q"], "later" => ["w"]}, by_name(flow).slice("now", "alarm", "sweep", "later"))
    queued = redis.call("LRANGE", "queue:default", 0, -1).map { |raw| JSON.parse(raw)["args"] }
    assert_equal [["now"], ["sweep"]], queued.sort, "released once each, at once"
    assert_equal [ext.step.jid, now.jid, later.jid], steps(flow)[merge.jid]["parents"].split, "grafted: alarm and sweep were not"
    assert_equal %w[3 3], [steps(flow)[merge.jid]["wait"], steps(flow)[cleanup.jid]["wait"]]
    ext.add(App::Note, "doomed", after: "alarm", name: "doomed") # cancelled at once, grafted
    assert_equal 1, ext.push
    assert_equal "c", by_name(flow)["merge"].first, "it waited for the success of a step that can no longer succeed"
    assert_equal "w", by_name(flow)["cleanup"].first, "on: :complete takes any end"
    assert_equal "w", by_name(flow)["later"].first, "a step the adder added itself is no dependent of it"
    ext.add(App::Note, "after-now", after: [now, now.name], name: "after_now") # a grafted step of an earlier add, named twice
    assert_equal 1, ext.push
    after_now = steps(flow).find { |_, step| JSON.parse(step["info"])["name"] == "after_now" }
    assert_equal [now.jid, "w", "1"], [after_now.last["parents"], after_now.last["state"], after_now.last["wait"]]
    assert_equal %w[10 3 6], Deckhand::Workflow.status(flow.id).values_at("total", "cancelled", "open")
  end

  def test_an_add_is_all_or_nothing_and_refused_once_the_step_ended
    flow, ext, = running_flow
    before = Deckhand::Workflow.status(flow.id)
    ext.add_many(App::Note, [["one"], ["two"]], name: "two")
    ext.add(App::Note, "lost", after: "nowhere")
    error = assert_raises(ArgumentError) { ext.push }
    assert_match(/waits for @nowhere, which the workflow does not have; nothing was changed/, error.message)
    assert_equal before, Deckhand::Workflow.status(flow.id)
    assert_equal 0, redis.call("LLEN", "queue:default")
    refute ext.pending?, "a refused add is dropped"
    ext.add(App::Note, "loop", after: "merge")
    error = assert_raises(ArgumentError) { ext.push }
    assert_match(/waits for @merge, which it may not, grafted \(add it with graft: false\)/, error.message)
    ext.add(App::Note, "loop", after: "merge", graft: false)
    assert_equal 1, ext.push
    Deckhand::Workflow.ops(Deckhand.config).step(flow.id, "s", ext.step.jid, "1")
    ext.add(App::Note, "late")
    error = assert_raises(Deckhand::Error) { ext.push }
    assert_match(/is not running: add steps from inside its perform/, error.message)
    other, ext, = running_flow
    Deckhand::Workflow.cancel(other.id)
    ext.add(App::Note, "too late")
    assert_equal :cancelled, ext.push
    error = assert_raises(Deckhand::Error) { Deckhand::Workflow.current }
    assert_match(/for a workflow step's perform/, error.message)
  end
end
