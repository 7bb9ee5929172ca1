# frozen_string_literal: true

require "test_helper"
require "deckhand/workflow"
require "deckhand/api"
require_relative "../support/cluster_helpers"

# Sub-workflows (Workflow#add_workflow) in cluster mode, worked by an
# embedded server: the sub-workflow's steps in queues on other primaries
# than the steps around it, every release through the outbox. A dependent
# runs once after every step in it, a step added inside it at run time
# included, and reads their results; a death in it decides its dependents
# once it ended, and a cancel before it travels through it.
class ClusterWorkflowSubflowTest < Minitest::Test
  include Deckhand::ClusterHelpers

  Names = Deckhand::Store::Layout::ClusterWorkflows
  RAN = Thread::Queue.new

  # Records its run; returns {"part" => i}.
  class Part
    include Deckhand::Job

    deckhand_options queue: "mail"

    def perform(i)
      RAN << ["part", i]
      {"part" => i}
    end
  end

  # Records its label and what its parents returned; returns its label.
  class Note
    include Deckhand::Job

    def perform(label)
      RAN << [label, Deckhand::Workflow.results_of]
      label
    end
  end

  # Adds part `i` to its workflow as it runs, not grafted.
  class AddsPart
    include Deckhand::Job

    deckhand_options queue: "mail"

    def perform(i)
      flow = Deckhand::Workflow.current
      flow.add(Part, i, graft: false)
      RAN << ["adds", [flow.push]]
      "adds"
    end
  end

  # Adds a sub-workflow of parts 5 and 6 (queue "mail") to its workflow as it
  # runs (in "default"), grafted: what waits for it waits for all of it.
  class AddsWorkflow
    include Deckhand::Job

    def perform
      part = Deckhand::Workflow.new("late")
      part.add(Part, 6, after: part.add(Part, 5))
      flow = Deckhand::Workflow.current
      flow.add_workflow(part)
      RAN << ["adds-workflow", [flow.push]]
      "adds-workflow"
    end
  end

  # Dies on its first failure.
  class Doomed
    include Deckhand::Job

    deckhand_options queue: "mail", retry: 0

    def perform(label)
      RAN << [label, []]
      raise ArgumentError, "#{label} fails on purpose"
    end
  end

  def setup
    super
    RAN.clear
    @pusher = Deckhand::Client.pusher
    Deckhand::Client.pusher = nil # straight to Redis, whatever an earlier test loaded
    Deckhand.config = new_config(concurrency: 4, queues: %w[default mail], scheduler_interval: 0.02)
    Deckhand::Workflow.install(Deckhand.config)
  end

  def teardown
    Deckhand::Client.pusher = @pusher
    super
  end

  def runs = Array.new(RAN.size) { RAN.pop }

  def by_name(flow) = Deckhand::Workflow.steps(flow.id).to_h { |_, step| [JSON.parse(step["info"])["name"], step["state"]] }

  def test_a_dependent_runs_once_after_every_step_of_the_sub_workflow_across_slots_and_reads_their_results
    harness = Deckhand::RedisClusterHarness.cluster
    refute_equal harness.primary_for(keys.queue("mail")).port, harness.primary_for(keys.queue("default")).port
    part = Deckhand::Workflow.new("part")
    part.add_many(Part, [[0], [1]])
    part.add(AddsPart, 2)
    flow = Deckhand::Workflow.new("import")
    fetch = flow.add(Note, "fetch", name: "fetch")
    sub = flow.add_workflow(part, after: fetch)
    flow.add(Note, "merge", after: sub, name: "merge")
    flow.push
    assert_equal [1, 0], [cluster.call("LLEN", keys.queue("default")), cluster.call("LLEN", keys.queue("mail"))], "only the fetch is released"
    with_server { assert_equal "succeeded", flow.wait(timeout: 20)["state"] }
    ran = runs
    assert_equal "fetch", ran.first.first
    assert_equal %w[adds part part part], ran[1, 4].map(&:first).sort
    assert_equal ["merge", [{"part" => 0}, {"part" => 1}, "adds", {"part" => 2}]], ran.last, "every step's result, the one added at run time last"
    assert_equal 6, ran.size
    assert_equal %w[6 6 0], Deckhand::Workflow.status(flow.id).values_at("total", "succeeded", "open")
    assert_equal [0, 0, 0], [cluster.call("LLEN", keys.queue("mail")), cluster.call("ZCARD", Names::OUTBOX), cluster.call("HLEN", Names::OUTBOX_JOBS)]
  end

  def test_a_death_inside_decides_the_dependents_and_a_death_before_it_cancels_it_whole
    part = Deckhand::Workflow.new("part")
    doomed = part.add(Doomed, "doomed")
    part.add(Note, "parse", after: doomed, name: "parse")
    part.add(Note, "side", name: "side")
    flow = Deckhand::Workflow.new("failing")
    before = flow.add(Note, "before", name: "before")
    sub = flow.add_workflow(part, after: before)
    flow.add(Note, "ok", after: sub, name: "ok")
    flow.add(Note, "on-failure", after: sub, on: :failure, name: "on_failure")
    flow.push
    with_server { assert_equal "failed", flow.wait(timeout: 20)["state"] }
    assert_equal %w[before doomed on-failure side], runs.map(&:first).sort
    assert_equal({"parse" => "c", "side" => "s", "part" => "x", "ok" => "c", "on_failure" => "s"}, by_name(flow).slice("parse", "side", "part", "ok", "on_failure"))

    part = Deckhand::Workflow.new("part")
    part.add(Note, "never", name: "never")
    flow = Deckhand::Workflow.new("cancelled before")
    sub = flow.add_workflow(part, after: flow.add(Doomed, "first"))
    flow.add(Note, "merge", after: sub, name: "merge")
    flow.add(Note, "cleanup", after: sub, on: :complete, name: "cleanup")
    flow.push
    with_server { assert_equal "failed", flow.wait(timeout: 20)["state"] }
    assert_equal [["cleanup", [nil]], ["first", []]], runs.sort_by(&:first), "the cleanup read the cancelled step's nil"
    assert_equal({"never" => "c", "part" => "c", "merge" => "c", "cleanup" => "s"}, by_name(flow).slice("never", "part", "merge", "cleanup"))
    assert_equal 0, cluster.call("ZCARD", Names::OUTBOX)
  end

  def test_a_sub_workflow_a_running_step_adds_runs_across_slots_before_the_steps_that_waited_for_it
    flow = Deckhand::Workflow.new("grown")
    adds = flow.add(AddsWorkflow)
    flow.add(Note, "merge", after: adds, name: "merge")
    flow.push
    with_server { assert_equal "succeeded", flow.wait(timeout: 20)["state"] }
    ran = runs
    assert_includes ran.first(3), ["adds-workflow", [2]], "it recorded its add as part 5 may start"
    assert_equal [["part", 5], ["part", 6]], ran.first(3) - [["adds-workflow", [2]]], "its steps in order, each once"
    assert_equal ["merge", ["adds-workflow", {"part" => 5}, {"part" => 6}]], ran.last, "the merge waited for the whole sub-workflow"
    assert_equal 4, ran.size
    assert_equal({"late" => "s", "merge" => "s"}, by_name(flow).slice("late", "merge"))
    assert_equal %w[4 4 0], Deckhand::Workflow.status(flow.id).values_at("total", "succeeded", "open")
    assert_equal [0, 0, 0], [cluster.call("LLEN", keys.queue("mail")), cluster.call("ZCARD", Names::OUTBOX), cluster.call("HLEN", Names::OUTBOX_JOBS)]
  end
end
