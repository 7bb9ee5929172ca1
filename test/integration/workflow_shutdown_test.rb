# frozen_string_literal: true

require "test_helper"
require "stringio"
require "logger"
require "support/cut_reply_proxy"
require_relative "../support/workflow/workflow_app"
require_relative "../support/workflow/ended"

# A step running as its server stops past the shutdown timeout: the
# shutdown interrupts it and hands its job back to its queue, and the step
# is released again, unrun. A cancel of its workflow before a server takes
# the job again cancels it, and the job then does not run; without a
# cancel it runs again and the workflow goes on.
class WorkflowShutdownTest < Minitest::Test
  include Deckhand::WorkflowEnded

  App = WorkflowApp

  def setup
    super
    Deckhand.config = new_config(concurrency: 2, timeout: 0.3)
    Deckhand::Workflow.install(Deckhand.config)
  end

  def teardown
    @proxy&.stop
    super
  end

  def runs(label) = App.runs.select { |run, _| run == label }.map(&:last)

  def names(flow) = Deckhand::Workflow.steps(flow.id).to_h { |_, step| [JSON.parse(step["info"])["name"], step["state"]] }

  # Pushes a Gated step "held" and a Note "after" it, and stops a server
  # while "held" runs: past the timeout, the shutdown hands it back.
  def handed_back_flow(name, queue: "default")
    flow = Deckhand::Workflow.new(name)
    held = flow.add(App::Gated.set(queue: queue), "held", name: "held")
    flow.add(App::Note, "after", after: held, name: "after")
    flow.push
    with_server { wait_for(message: "the step running") { runs("held").size == 1 } }
    assert_equal held.jids, jobs_in(queue).map { |job| job["jid"] }, "the shutdown handed its job back"
    assert_equal({"held" => "q", "after" => "w"}, names(flow), "released again, unrun")
    flow
  end

  def test_a_step_handed_back_at_a_shutdown_is_cancelled_with_its_workflow_and_its_job_does_not_run_again
    flow = handed_back_flow("stopped, then cancelled")
    assert_equal 2, Deckhand::Workflow.cancel(flow.id), "neither step runs: both cancelled"
    assert_equal "cancelled", ended(flow, timeout: 5)["state"], "no step runs: it ends at once"
    App.open_gate("held") # had it run again, it would have returned at once
    with_server do
      wait_for(message: "the handed-back job taken") { redis.call("LLEN", "queue:default").zero? }
      sleep 0.2 # had it run, it would have recorded its run by now
    end
    assert_equal [[]], runs("held"), "its job, taken again, did not run"
    assert_empty runs("after")
    assert_equal({"held" => "c", "after" => "c"}, names(flow))
    assert_equal %w[2 0 2], Deckhand::Workflow.status(flow.id).values_at("total", "succeeded", "cancelled")
    assert_equal 0, redis.call("LLEN", "queue:default")
  end

  # A fiber capsule's shutdown interrupts its step the same way.
  def test_a_step_of_a_fiber_capsule_handed_back_at_a_shutdown_is_cancelled_with_its_workflow
    skip_on_jruby("fiber capsules refuse to start there")
    Deckhand.config.capsule("io", concurrency: 2, queues: ["io"], fibers: true)
    flow = handed_back_flow("fibers stopped, then cancelled", queue: "io")
    assert_equal 2, Deckhand::Workflow.cancel(flow.id)
    assert_equal "cancelled", ended(flow, timeout: 5)["state"]
    App.open_gate("held")
    with_server do
      wait_for(message: "the handed-back job taken") { redis.call("LLEN", "queue:io").zero? }
      sleep 0.2 # had it run, it would have recorded its run by now
    end
    assert_equal [[]], runs("held"), "its job, taken again, did not run"
    assert_equal({"held" => "c", "after" => "c"}, names(flow))
  end

  def test_a_step_handed_back_at_a_shutdown_runs_again_and_its_workflow_succeeds
    flow = handed_back_flow("stopped, then resumed")
    App.open_gate("held")
    with_server { assert_equal "succeeded", ended(flow)["state"] }
    assert_equal [[], []], runs("held"), "interrupted once, then run to its end"
    assert_equal [["held"]], runs("after"), "the step after it ran once, with its result"
    assert_equal({"held" => "s", "after" => "s"}, names(flow))
    assert_equal 0, redis.call("LLEN", "queue:default")
  end

  # Redis does not hear the news at the shutdown (the connection cut before
  # its call reaches Redis): logged, not waited out, the step is left
  # running as it was, its job handed back all the same, run once more.
  def test_a_step_whose_news_is_lost_at_the_shutdown_stays_running_and_runs_again
    @proxy = Deckhand::CutReplyProxy.start(port: Deckhand::RedisHarness.server.port)
    log = StringIO.new
    Deckhand.config = new_config(concurrency: 2, timeout: 0.3, redis: {url: @proxy.url, timeout: 1})
    Deckhand.config.logger = Logger.new(log)
    Deckhand::Workflow.install(Deckhand.config)
    flow = Deckhand::Workflow.new("stopped, news lost")
    held = flow.add(App::Gated, "held", name: "held")
    flow.add(App::Note, "after", after: held, name: "after")
    flow.push
    stopped_in = nil
    with_server do |launcher|
      wait_for(message: "the step running") { runs("held").size == 1 }
      @proxy.cut_request_at { |command| command.first.casecmp?("EVALSHA") && command.include?("q") && command.include?(held.jid) }
      started = Deckhand::Monotonic.now
      launcher.stop
      stopped_in = Deckhand::Monotonic.now - started
    end
    assert_equal 1, @proxy.cuts, "the news was cut on its way"
    assert_includes log.string, "could not mark workflow #{flow.id}'s step #{held.jid} as handed back at a shutdown"
    assert_operator stopped_in, :<, 4, "the shutdown did not wait for Redis to hear it"
    assert_equal held.jids, jobs_in("default").map { |job| job["jid"] }, "its job handed back all the same"
    assert_equal({"held" => "r", "after" => "w"}, names(flow), "left running, as it was")
    App.open_gate("held")
    with_server { assert_equal "succeeded", ended(flow)["state"] }
    assert_equal [[], []], runs("held")
    assert_equal [["held"]], runs("after")
  end
end
