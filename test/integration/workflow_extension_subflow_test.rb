# frozen_string_literal: true

require "test_helper"
require_relative "../support/workflow/workflow_app"
require_relative "../support/workflow/ended"

# A sub-workflow a running step adds to its own workflow
# (Deckhand::Workflow.current.add_workflow): its steps run before what
# waits for the adding step, which waits for the whole of it; a rerun of
# the adding step adds nothing twice; an add is all or nothing.
class WorkflowExtensionSubflowTest < Minitest::Test
  include Deckhand::WorkflowEnded

  App = WorkflowApp

  def setup
    super
    Deckhand.config = new_config(concurrency: 4, scheduler_interval: 0.02)
    Deckhand::Workflow.install(Deckhand.config)
  end

  def steps(flow) = Deckhand::Workflow.steps(flow.id)

  def named(flow, name) = steps(flow).select { |_, step| JSON.parse(step["info"])["name"] == name }

  def split_flow(once)
    flow = Deckhand::Workflow.new("split")
    fetch = flow.add(App::Note, "fetch", name: "fetch")
    split = flow.add(App::SubSplitter, 7, 3, once, after: fetch)
    merge = flow.add(App::Note, "merge", after: split, name: "merge")
    flow.add(App::Note, "done", after: merge, name: "done")
    flow.push
    [flow, split, merge]
  end

  def test_a_sub_workflow_added_by_a_running_step_runs_before_what_waits_for_the_step
    flow, split, merge = split_flow(nil)
    with_server { assert_equal "succeeded", ended(flow)["state"] }
    labels = App.runs.map(&:first)
    assert_equal "fetch", labels.first
    assert_equal %w[part part part split tally], labels[1, 5].sort, "the split records its add as the parts may start"
    assert_equal %w[merge done], labels.drop(6), "the merge waited for the sub-workflow the splitter added"
    assert_equal [7, 4], App.runs.assoc("split").last, "its parts and tally, added in one call"
    assert_equal [3, *(0...3).map { |i| {"part" => i, "rows" => 10 * i} }, "tally"], App.runs.assoc("merge").last,
      "the merge reads the splitter's result, then its sub-workflow's steps', in the order they were added"
    sub, = named(flow, "part-7").keys
    assert_equal [split.jid, sub], steps(flow)[merge.jid]["parents"].split, "grafted: it waits for the sub-workflow, whole"
    assert_equal "s", steps(flow)[sub]["state"]
    assert_equal 4, steps(flow)[sub]["parents"].split.size
    assert_equal %w[8 8 0], Deckhand::Workflow.status(flow.id).values_at("total", "succeeded", "open"), "the sub-workflow itself is no step"
  end

  def test_a_rerun_of_the_adding_step_adds_nothing_twice
    flow, = split_flow("fail")
    with_server { assert_equal "succeeded", ended(flow)["state"] }
    runs = App.runs
    assert_equal [[7, 4], [7, 0]], runs.filter_map { |label, args| args if label == "split" }, "the rerun's add found its steps there"
    assert_equal %w[done fetch merge part part part split split tally], runs.map(&:first).sort, "each added step ran once"
    assert_equal 1, named(flow, "part-7").size
    assert_equal %w[8 8], Deckhand::Workflow.status(flow.id).values_at("total", "succeeded")
  end

  def test_a_sub_workflow_added_inside_a_sub_workflow_holds_back_what_waits_for_the_outer_one
    outer = Deckhand::Workflow.new("outer")
    outer.add(App::SubSplitter, 5, 2)
    flow = Deckhand::Workflow.new("nested")
    sub = flow.add_workflow(outer)
    flow.add(App::Note, "merge", after: sub, name: "merge")
    flow.push
    with_server { assert_equal "succeeded", ended(flow)["state"] }
    labels = App.runs.map(&:first)
    assert_equal %w[part part split tally], labels.first(4).sort
    assert_equal "merge", labels.last, "it waited for the sub-workflow added inside the one it waits for"
    assert_equal [2, {"part" => 0, "rows" => 0}, {"part" => 1, "rows" => 10}, "tally"], App.runs.assoc("merge").last
    assert_equal %w[s s], [named(flow, "outer"), named(flow, "part-5")].map { |found| found.values.first["state"] }
    assert_equal %w[5 5], Deckhand::Workflow.status(flow.id).values_at("total", "succeeded")
  end

  # The adding step is made to run by hand (the scripts a server calls),
  # so each add's effect is read before anything else runs.
  def running_flow
    flow = Deckhand::Workflow.new("by hand")
    adder = flow.add(App::Note, "adder", name: "adder")
    merge = flow.add(App::Note, "merge", after: adder, name: "merge")
    flow.push
    assert_equal "run", Deckhand::Workflow.ops(Deckhand.config).step(flow.id, "r", adder.jid)
    redis.call("DEL", "queue:default")
    [flow, adder, merge]
  end

  def extension(flow, adder) = Deckhand::Workflow::Extension.new(flow.id, adder.jid, "adder", Deckhand.config)

  def part(id)
    part = Deckhand::Workflow.new("part #{id}")
    parts = part.add_many(App::Part, [[id, 0], [id, 1]])
    part.add(App::Note, "tally", after: parts, name: "tally")
    part
  end

  def test_its_steps_take_jids_from_the_adding_step_so_an_add_told_again_adds_nothing
    flow, adder, merge = running_flow
    ext = extension(flow, adder)
    sub = ext.add_workflow(part(1), after: ext.step)
    assert_equal 3, ext.push, "two parts and their tally; the sub-workflow itself is no step"
    assert_equal({"part-1" => %w[w], "WorkflowApp::Part" => %w[w w], "tally" => %w[w]},
      steps(flow).values.group_by { |step| JSON.parse(step["info"])["name"] }.except("adder", "merge").transform_values { |list| list.map { |step| step["state"] } })
    assert_equal [adder.jid, sub.jid], steps(flow)[merge.jid]["parents"].split
    assert_equal (1..4).map { |n| Deckhand::Workflow::Extension.jid(flow.id, adder.jid, n) }.sort, (steps(flow).keys - [adder.jid, merge.jid]).sort
    again = extension(flow, adder)
    assert_equal sub.jid, again.add_workflow(part(1), after: again.step).jid
    assert_equal 0, again.push, "a rerun's add"
    assert_equal %w[5 5], Deckhand::Workflow.status(flow.id).values_at("total", "open")
    Deckhand::Workflow.ops(Deckhand.config).step(flow.id, "s", adder.jid, "1")
    queued = redis.call("LRANGE", "queue:default", 0, -1).map { |raw| JSON.parse(raw)["args"] }
    assert_equal [[1, 0], [1, 1]], queued.sort, "the adder's end released the parts, and only them"
  end

  def test_not_grafted_the_adding_steps_dependents_do_not_wait_for_it_and_an_add_is_all_or_nothing
    flow, adder, merge = running_flow
    ext = extension(flow, adder)
    ext.add_workflow(part(2), name: "free", graft: false)
    assert_equal 3, ext.push
    assert_equal [adder.jid], steps(flow)[merge.jid]["parents"].split
    assert_equal 2, redis.call("LLEN", "queue:default"), "the parts wait for nothing: released at once"
    before = Deckhand::Workflow.status(flow.id)
    ext.add(App::Note, "first")
    ext.add_workflow(part(3), after: "merge")
    error = assert_raises(ArgumentError) { ext.push }
    assert_match(/waits for @merge, which it may not, grafted \(add it with graft: false\).*; nothing was changed/, error.message)
    assert_equal before, Deckhand::Workflow.status(flow.id)
    assert_empty named(flow, "part-3")
    inner = part(4)
    ext.add_workflow(inner)
    error = assert_raises(ArgumentError) { ext.add_workflow(inner) }
    assert_match(/is a sub-workflow of #{flow.id} already/, error.message)
    error = assert_raises(ArgumentError) { ext.add_workflow(Deckhand::Workflow.new("empty")) }
    assert_match(/has no steps/, error.message)
    error = assert_raises(ArgumentError) { ext.add_workflow(Deckhand::Workflow.new("other", config: new_config)) }
    assert_match(/built with another config than #{flow.id}, which pushes its steps/, error.message)
  end
end
