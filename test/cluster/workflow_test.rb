# frozen_string_literal: true

require "test_helper"
require "deckhand/workflow"
require "deckhand/api"
require_relative "../support/cluster_helpers"

# Workflows in cluster mode, worked by an embedded server: every workflow key
# in the {workflows} slot, steps in queues on other primaries. A released
# step's job goes through the workflows' outbox to its queue: fan-out and
# fan-in run each step once, children read their parents' results, a death
# cancels what waits for its success down the graph, and kept results are
# read with Deckhand::JobResult as in plain mode.
class ClusterWorkflowTest < Minitest::Test
  include Deckhand::ClusterHelpers

  Names = Deckhand::Store::Layout::ClusterWorkflows
  RAN = Thread::Queue.new

  # Records its run; returns {"part" => i}.
  class Part
    include Deckhand::Job

    deckhand_options queue: "mail"

    def perform(i)
      RAN << ["part", i]
      {"part" => i, "rows" => 10 * i}
    end
  end

  # Records its parents' results; returns their rows' sum.
  class Merge
    include Deckhand::Job

    deckhand_options result: true

    def perform
      parts = Deckhand::Workflow.results_of(Part.name)
      RAN << ["merge", parts]
      parts.sum { |part| part["rows"] }
    end
  end

  # Records its label and what its parents returned.
  class Note
    include Deckhand::Job

    def perform(label) = RAN << [label, Deckhand::Workflow.results_of]
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

  # Adds n parts and a tally after them to its workflow as it runs.
  class Splitter
    include Deckhand::Job

    def perform(n)
      flow = Deckhand::Workflow.current
      parts = flow.add_many(Part, (0...n).zip)
      flow.add(Note, "tally", after: parts)
      RAN << ["split", flow.push]
    end
  end

  # Waits, while it runs, until its workflow is cancelled.
  class Waits
    include Deckhand::Job

    def perform(wid)
      RAN << ["waits", []]
      sleep 0.01 until Deckhand::Workflow.status(wid)["cancelled_at"]
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

  def states(flow) = Deckhand::Workflow.steps(flow.id).to_h { |jid, step| [jid, step["state"]] }

  def test_fan_out_and_fan_in_across_slots_run_each_step_once_and_children_read_their_parents_results
    harness = Deckhand::RedisClusterHarness.cluster
    refute_equal harness.primary_for(keys.queue("mail")).port, harness.primary_for(keys.queue("default")).port
    flow = Deckhand::Workflow.new("import")
    first = flow.add(Note, "fetch")
    parts = flow.add_many(Part, (0...4).zip, after: first)
    merge = flow.add(Merge, after: parts)
    flow.add(Note, "notify", after: merge, name: "notify")
    assert_equal flow.id, flow.push
    assert_equal 1, cluster.call("LLEN", keys.queue("default")), "the step waiting for nothing is in its queue as push returns"
    assert_equal 0, cluster.call("ZCARD", Names::OUTBOX), "and no longer in the outbox"
    with_server { assert_equal "succeeded", flow.wait(timeout: 20)["state"] }
    ran = runs
    assert_equal ["fetch", "part", "part", "part", "part", "merge", "notify"], ran.map(&:first)
    assert_equal [0, 1, 2, 3], ran[1, 4].map(&:last).sort
    assert_equal (0...4).map { |i| {"part" => i, "rows" => 10 * i} }, ran[5].last, "merge read the parts' results, in order"
    assert_equal [60], ran[6].last, "notify read merge's result"
    assert_equal 60, Deckhand::JobResult.wait(merge.jid, timeout: 5), "a kept result read as in plain mode"
    assert_equal %w[7 7 0 0], Deckhand::Workflow.status(flow.id).values_at("total", "succeeded", "cancelled", "open")
    assert_equal ["s"] * 7, states(flow).values
    assert_equal [0, 0, 0], [cluster.call("LLEN", keys.queue("default")), cluster.call("LLEN", keys.queue("mail")), cluster.call("ZCARD", Names::OUTBOX)]
    assert_equal 0, cluster.call("HLEN", Names::OUTBOX_JOBS)
    assert_equal({"pushed" => 1, "released" => 7, "ended" => {"succeeded" => 1}}, Deckhand::API.new.workflows.counts.slice("pushed", "released", "ended"))
  end

  def test_a_death_cancels_what_waits_for_its_success_down_the_graph_and_releases_what_waits_for_its_failure
    flow = Deckhand::Workflow.new("doomed")
    fetch = flow.add(Doomed, "fetch")
    parse = flow.add(Note, "parse", after: fetch)
    merge = flow.add(Note, "merge", after: parse)
    alert = flow.add(Note, "alert", after: fetch, on: :failure)
    flow.add(Note, "after", after: merge, on: :complete)
    flow.push
    with_server { assert_equal "failed", flow.wait(timeout: 20)["state"] }
    ran = runs.map(&:first)
    assert_equal ["fetch", %w[after alert]], [ran.first, ran.drop(1).sort]
    steps = states(flow)
    assert_equal %w[d c c s], [fetch, parse, merge, alert].map { |ref| steps[ref.jid] }
    assert_equal %w[5 2 1 2 0], Deckhand::Workflow.status(flow.id).values_at("total", "succeeded", "dead", "cancelled", "open")
    assert_equal 0, cluster.call("ZCARD", Names::OUTBOX)
  end

  def test_steps_a_running_step_adds_are_released_across_slots_and_what_waited_for_it_waits_for_them
    flow = Deckhand::Workflow.new("grown")
    split = flow.add(Splitter, 3)
    flow.add(Note, "after", after: split)
    flow.push
    with_server { assert_equal "succeeded", flow.wait(timeout: 20)["state"] }
    ran = runs
    assert_equal ["split", 4], ran.first, "its add added three parts and the tally"
    assert_equal %w[part part part tally after], ran.drop(1).map(&:first)
    assert_equal (0...3).map { |i| {"part" => i, "rows" => 10 * i} }, ran[4].last.sort_by { |result| result["part"] }
    assert_equal %w[6 6], Deckhand::Workflow.status(flow.id).values_at("total", "succeeded")
    assert_equal 0, cluster.call("ZCARD", Names::OUTBOX)
  end

  def test_a_workflow_cancelled_by_hand_releases_nothing_more_and_ends_cancelled
    flow = Deckhand::Workflow.new("cancelled")
    waits = flow.add(Waits, flow.id)
    later = flow.add(Note, "later", after: waits, on: :complete)
    flow.push
    with_server do
      wait_for(message: "the waiting step running") { RAN.size == 1 }
      assert_operator Deckhand::Workflow.cancel(flow.id), :>=, 1
      assert_equal "cancelled", flow.wait(timeout: 20)["state"]
    end
    assert_equal %w[waits], runs.map(&:first), "what waited for it was cancelled, not released"
    assert_equal "c", states(flow)[later.jid]
    assert_equal [0, 0], [cluster.call("ZCARD", Names::OUTBOX), cluster.call("LLEN", keys.queue("default"))]
  end
end
