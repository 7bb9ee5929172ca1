# frozen_string_literal: true

require "test_helper"
require_relative "../support/workflow/workflow_app"
require_relative "../support/workflow/ended"

# A chunk running as its server stops past the shutdown timeout: the
# shutdown interrupts perform_chunk and hands every member back to its
# queue, and each member's middleware chain, paused around the chunk, sees
# the shutdown as a job run alone would. A member that is a workflow step is
# released again, unrun: a cancel of its workflow then cancels it.
class ChunkShutdownTest < Minitest::Test
  include Deckhand::WorkflowEnded

  # Runs until its gate opens (WorkflowApp.open_gate("chunk")); each member's result is its label.
  class GatedChunk
    include Deckhand::Job

    deckhand_options chunk: {size: 10, wait: 0.5}

    def perform_chunk(chunk)
      WorkflowApp.ran("chunk", chunk.args.flatten.sort)
      sleep 0.01 until WorkflowApp.call("GET", "app:gate:chunk")
      chunk.each { |(label), job| chunk.result(job, label) }
    end
  end

  # Records what each member's chain saw: the shutdown, its end.
  class ShutdownTrace
    TRACE = Queue.new

    def call(_instance, payload, _queue)
      yield
    rescue Deckhand::Shutdown
      TRACE << [:shutdown, payload["args"].first]
      raise
    ensure
      TRACE << [:left, payload["args"].first]
    end
  end

  LABELS = %w[a b c].freeze

  def setup
    super
    ShutdownTrace::TRACE.clear
    Deckhand.config = new_config(concurrency: 1, timeout: 0.3)
    Deckhand::Workflow.install(Deckhand.config)
  end

  def runs(label) = WorkflowApp.runs.select { |run, _| run == label }.map(&:last)

  def names(flow) = Deckhand::Workflow.steps(flow.id).values.map { |step| [JSON.parse(step["info"])["name"], step["state"]] }.sort

  # Three members of one chunk as steps "member", a Note "after" them; a
  # server stopped while the chunk runs hands them back. `chunks`: how the
  # server makes chunks of them.
  def handed_back_flow(name, queue: "default", chunks: [LABELS])
    flow = Deckhand::Workflow.new(name)
    members = flow.add_many(GatedChunk.set(queue: queue), LABELS.zip, name: "member")
    flow.add(WorkflowApp::Note, "after", after: members, name: "after")
    flow.push
    with_server { wait_for(message: "the chunks running") { runs("chunk").size == chunks.size } }
    assert_equal chunks, runs("chunk").sort
    assert_equal members.jids.sort, jobs_in(queue).map { |job| job["jid"] }.sort, "the shutdown handed each member back once"
    assert_equal [["after", "w"], ["member", "q"], ["member", "q"], ["member", "q"]], names(flow), "each released again, unrun"
    flow
  end

  def test_members_handed_back_at_a_shutdown_are_cancelled_with_their_workflow_and_do_not_run_again
    flow = handed_back_flow("chunk stopped, then cancelled")
    assert_equal 4, Deckhand::Workflow.cancel(flow.id), "no step runs: all cancelled"
    assert_equal "cancelled", ended(flow, timeout: 5)["state"], "it ends at once"
    WorkflowApp.open_gate("chunk") # had the chunk run again, it would have returned at once
    with_server do
      wait_for(message: "the handed-back members taken") { redis.call("LLEN", "queue:default").zero? }
      sleep 0.2 # had they run, the chunk would have recorded its run by now
    end
    assert_equal [LABELS], runs("chunk"), "taken again, no member ran"
    assert_empty runs("after")
    assert_equal [["after", "c"], ["member", "c"], ["member", "c"], ["member", "c"]], names(flow)
    assert_equal %w[4 0 4], Deckhand::Workflow.status(flow.id).values_at("total", "succeeded", "cancelled")
  end

  # A fiber capsule's shutdown interrupts its chunks (of one member each,
  # docs/chunks.md) the same way.
  def test_members_of_a_fiber_capsule_handed_back_at_a_shutdown_are_cancelled_with_their_workflow
    skip_on_jruby("fiber capsules refuse to start there")
    Deckhand.config.capsule("io", concurrency: 3, queues: ["io"], fibers: true)
    flow = handed_back_flow("fibers stopped, then cancelled", queue: "io", chunks: LABELS.zip)
    assert_equal 4, Deckhand::Workflow.cancel(flow.id)
    assert_equal "cancelled", ended(flow, timeout: 5)["state"]
    WorkflowApp.open_gate("chunk")
    with_server do
      wait_for(message: "the handed-back members taken") { redis.call("LLEN", "queue:io").zero? }
      sleep 0.2 # had they run, the chunk would have recorded its run by now
    end
    assert_equal LABELS.zip, runs("chunk").sort, "taken again, no member ran"
    assert_equal [["after", "c"], ["member", "c"], ["member", "c"], ["member", "c"]], names(flow)
  end

  def test_members_handed_back_at_a_shutdown_run_again_and_their_workflow_succeeds
    flow = handed_back_flow("chunk stopped, then resumed")
    WorkflowApp.open_gate("chunk")
    with_server { assert_equal "succeeded", ended(flow)["state"] }
    assert_equal [LABELS, LABELS], runs("chunk"), "interrupted once, then run to its end in one chunk"
    assert_equal [[LABELS]], runs("after").map { |results| [results.sort] }, "the step after them ran once, with their results"
    assert_equal [["after", "s"], ["member", "s"], ["member", "s"], ["member", "s"]], names(flow)
    assert_equal 0, redis.call("LLEN", "queue:default")
  end

  def test_each_members_middleware_sees_the_shutdown_once
    config = new_config(concurrency: 1, timeout: 0.3)
    config.server_middleware.add(ShutdownTrace)
    jids = GatedChunk.perform_bulk(LABELS.zip)
    with_server(config) { wait_for(message: "the chunk running") { runs("chunk").size == 1 } }
    trace = []
    trace << ShutdownTrace::TRACE.pop until ShutdownTrace::TRACE.empty?
    assert_equal LABELS.flat_map { |label| [[:shutdown, label], [:left, label]] }, trace, "each member's chain saw the shutdown, then left, once"
    assert_equal jids.sort, jobs_in("default").map { |job| job["jid"] }.sort, "each member handed back once"
    assert_equal [LABELS], runs("chunk")
  end
end
