# frozen_string_literal: true

require "test_helper"
require "support/iterable/iterable_helper"
require_relative "../support/workflow/workflow_app"
require_relative "../support/workflow/ended"

# An iterable step its server's stop interrupts between two steps goes back
# to resume from its cursor, released again (state q): a cancel of its
# workflow before it resumes cancels it, and it processes no further item;
# without a cancel it resumes where it stopped, each item processed once.
class WorkflowIterableShutdownTest < Minitest::Test
  include Deckhand::WorkflowEnded
  include IterableTestSetup

  def setup
    super
    Deckhand.config = iterable_config(timeout: 8)
    Deckhand::Workflow.install(Deckhand.config)
  end

  def teardown
    Deckhand::Lifecycle.reset!
    super
  end

  def names(flow) = Deckhand::Workflow.steps(flow.id).to_h { |_, step| [JSON.parse(step["info"])["name"], step["state"]] }

  # Pushes a GatedJob step over 0...10 and a Note after it, lets it process
  # items 0 to 3 and stops its server while it waits before item 4: the
  # stop lets it finish item 4, and it stops there, handed back.
  def interrupted_flow(name)
    flow = Deckhand::Workflow.new(name)
    iter = flow.add(IterableJobs::GatedJob, 10, name: "iter")
    flow.add(WorkflowApp::Note, "after", after: iter, name: "after")
    flow.push
    IterableJobs.open_gate(3)
    with_server do |launcher|
      wait_for(message: "the step at item 4") { IterableJobs.waiting == 4 }
      stopping = Thread.new { launcher.stop }
      wait_for(message: "the server stopping") { Deckhand::Lifecycle.stopping? }
      IterableJobs.open_gate(4)
      stopping.join
    end
    Deckhand::Lifecycle.reset!
    assert_equal [0, 1, 2, 3, 4], IterableJobs.ledger, "it stopped after the step under way"
    assert_equal %w[start stop], IterableJobs.callbacks
    assert_equal "5", state(iter.jid)["c"], "its cursor saved"
    assert_equal({"iter" => "q", "after" => "w"}, names(flow), "released again, to resume")
    [flow, iter]
  end

  def test_a_cancel_while_an_interrupted_iterable_step_waits_to_resume_cancels_it
    flow, iter = interrupted_flow("iterable, stopped, then cancelled")
    assert_equal 2, Deckhand::Workflow.cancel(flow.id), "both steps cancelled"
    assert_equal "cancelled", ended(flow, timeout: 5)["state"], "no step runs: it ends at once"
    IterableJobs.open_gate(10)
    with_server do
      wait_for(message: "the handed-back job taken") { redis.call("ZCARD", "schedule").zero? && redis.call("LLEN", "queue:default").zero? }
      wait_for(message: "its cursor dropped") { state(iter.jid).empty? }
    end
    assert_equal [0, 1, 2, 3, 4], IterableJobs.ledger, "no item after its cancel"
    assert_equal %w[start stop], IterableJobs.callbacks, "it did not resume"
    assert_equal({"iter" => "c", "after" => "c"}, names(flow))
    assert_empty WorkflowApp.runs
  end

  def test_an_interrupted_iterable_step_resumes_from_its_cursor_and_its_workflow_succeeds
    flow, iter = interrupted_flow("iterable, stopped, then resumed")
    IterableJobs.open_gate(10)
    with_server { assert_equal "succeeded", ended(flow)["state"] }
    assert_equal (0...10).to_a, IterableJobs.ledger, "every item once"
    assert_equal %w[start stop resume stop complete], IterableJobs.callbacks
    assert_equal({"iter" => "s", "after" => "s"}, names(flow))
    assert_equal [["after", [nil]]], WorkflowApp.runs, "released once"
    assert_empty state(iter.jid)
  end
end
