# frozen_string_literal: true

require_relative "e2e_helper"
require "support/workflow/workflow_app"
require "support/workflow/ended"

# A real server process stopped by TERM while a step runs past its
# shutdown timeout (-t 1): the step is interrupted and its job handed back
# to its queue, the step released again. A cancel before the next server
# takes the job cancels it, and the job does not run; without one, the
# next server runs it and the workflow succeeds.
class WorkflowShutdownE2ETest < Minitest::Test
  include Deckhand::E2EHelpers
  include Deckhand::WorkflowEnded

  APP = File.expand_path("../support/workflow/workflow_kill_app.rb", __dir__)

  def setup
    super
    Deckhand::Workflow.install(Deckhand.config)
  end

  def worker
    cli = deckhand("-c", "2", "-t", "1", app: APP)
    cli.identity
    cli
  end

  def runs(label) = WorkflowApp.runs.select { |run, _| run == label }.map(&:last)

  def names(flow) = Deckhand::Workflow.steps(flow.id).to_h { |_, step| [JSON.parse(step["info"])["name"], step["state"]] }

  # A Gated step "held" and a Note "after" it; TERM while "held" runs.
  def stopped_while_running(name)
    flow = Deckhand::Workflow.new(name)
    held = flow.add(WorkflowApp::Gated, "held", name: "held")
    flow.add(WorkflowApp::Note, "after", after: held, name: "after")
    flow.push
    cli = worker
    wait_for(timeout: 30, message: "the step running") { runs("held").size == 1 }
    cli.signal("TERM")
    cli.wait_exit(timeout: 30)
    assert_match(/handed 1 unfinished jobs back to their queues/, cli.output)
    assert_equal held.jids, jobs_in("default").map { |job| job["jid"] }
    assert_equal({"held" => "q", "after" => "w"}, names(flow), "released again, unrun")
    flow
  end

  def test_a_step_handed_back_by_a_term_and_then_cancelled_does_not_run_again
    flow = stopped_while_running("terminated, then cancelled")
    assert_equal 2, Deckhand::Workflow.cancel(flow.id)
    assert_equal "cancelled", ended(flow, timeout: 5)["state"]
    WorkflowApp.open_gate("held") # had it run again, it would have returned at once
    cli = worker
    wait_for(timeout: 30, message: "the handed-back job taken and settled") do
      redis.call("LLEN", "queue:default").zero? && inflight_count(cli.identity).zero?
    end
    sleep 0.3 # had it run, it would have recorded its run by now
    assert_equal [[]], runs("held"), "taken again, it did not run"
    assert_empty runs("after")
    assert_equal({"held" => "c", "after" => "c"}, names(flow))
  end

  def test_a_step_handed_back_by_a_term_runs_again_on_the_next_server
    flow = stopped_while_running("terminated, then resumed")
    WorkflowApp.open_gate("held")
    worker
    assert_equal "succeeded", ended(flow, timeout: 30)["state"]
    assert_equal [[], []], runs("held")
    assert_equal [["held"]], runs("after")
    assert_equal({"held" => "s", "after" => "s"}, names(flow))
  end
end
