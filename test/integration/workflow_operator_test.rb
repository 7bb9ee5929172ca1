# frozen_string_literal: true

require "test_helper"
require "deckhand/api"
require "deckhand/testing"
require_relative "../support/workflow/workflow_app"
require_relative "../support/workflow/ended"

# Requiring deckhand/testing turned its fake mode on for the whole process: Redis back.
Deckhand::Testing.disable!

# What an operator does to a workflow, against a real server in this
# process: cancel it by hand, retry a dead step so the rest resumes, cancel
# one step's job with Client.cancel.
class WorkflowOperatorTest < Minitest::Test
  include Deckhand::WorkflowEnded

  App = WorkflowApp

  def setup
    super
    Deckhand::Testing.disable!
    Deckhand.config = new_config(concurrency: 4, scheduler_interval: 0.02, heartbeat_interval: 0.1)
    Deckhand::Workflow.install(Deckhand.config)
  end

  def labels = App.runs.map(&:first)

  def states(flow) = Deckhand::Workflow.steps(flow.id).to_h { |jid, step| [jid, step["state"]] }

  def test_a_workflow_cancelled_by_hand_cancels_what_has_not_started_and_ends_once_its_running_step_finishes
    flow = Deckhand::Workflow.new("cancel me")
    slow = flow.add(App::Gated, "slow")
    other = flow.add(App::Gated, "other", name: "other")
    after = flow.add(App::Note, "after", after: [slow, other], name: "after")
    cleanup = flow.add(App::Note, "cleanup", after: after, on: :complete, name: "cleanup")
    flow.push
    with_server do
      wait_for(message: "both roots running") { states(flow).values_at(slow.jid, other.jid) == %w[r r] }
      App.open_gate("other")
      wait_for(message: "the other root's success") { states(flow)[other.jid] == "s" }
      assert_equal 2, Deckhand::Workflow.cancel(flow.id), "the two steps that had not started"
      assert_equal({slow.jid => "r", other.jid => "s", after.jid => "c", cleanup.jid => "c"}, states(flow))
      assert_equal "running", Deckhand::Workflow.status(flow.id)["state"], "its running step runs on"
      App.open_gate("slow")
      assert_equal "cancelled", ended(flow)["state"]
    end
    assert_equal %w[other slow], labels.sort, "nothing after the cancel ran"
    assert_equal({slow.jid => "s", after.jid => "c"}, states(flow).slice(slow.jid, after.jid))
    assert_equal %w[2 2 0], Deckhand::Workflow.status(flow.id).values_at("succeeded", "cancelled", "open")
    assert_equal :ended, Deckhand::Workflow.cancel(flow.id)
    assert_equal :not_found, Deckhand::Workflow.cancel("no-such-workflow")
    error = JSON.parse(redis.call("HGET", "deckhand:workflow:#{flow.id}:errors", after.jid))
    assert_equal "its workflow was cancelled by hand", error["error_message"]
  end

  def test_a_queued_step_of_a_cancelled_workflow_never_runs
    flow = Deckhand::Workflow.new("cancelled before a server ran it")
    first = flow.add(App::Note, "first", name: "first")
    flow.add(App::Note, "second", after: first, name: "second")
    flow.push
    assert_equal 2, Deckhand::Workflow.cancel(flow.id)
    assert_equal "cancelled", flow.wait(timeout: 1)["state"], "no step runs: it ended"
    with_server { wait_for(message: "the queued job taken") { redis.call("LLEN", "queue:default").zero? } }
    assert_empty labels
    assert_equal ["c", "c"], states(flow).values
  end

  def test_a_dead_step_retried_by_hand_resumes_the_rest_releasing_each_step_once
    flow = Deckhand::Workflow.new("resumed")
    flaky = flow.add(App::DiesFirst, "flaky")
    parse = flow.add(App::Note, "parse", after: flaky, name: "parse")
    merge = flow.add(App::Note, "merge", after: [parse, flaky], name: "merge")
    alert = flow.add(App::Note, "alert", after: flaky, on: :failure, name: "alert")
    flow.push
    with_server do
      assert_equal "failed", ended(flow)["state"]
      assert_equal({flaky.jid => "d", parse.jid => "c", merge.jid => "c", alert.jid => "s"}, states(flow))
      dead = Deckhand::API.new.dead
      assert_equal 1, dead.retry([dead.find_jid(flaky.jid)])
      wait_for(message: "the workflow's second end") { Deckhand::Workflow.status(flow.id)["state"] == "succeeded" }
      assert_equal "succeeded", flow.wait(timeout: 1)["state"], "waiters see the new end"
    end
    assert_equal %w[flaky alert flaky parse merge], labels, "alert ran on the death, once; the rest once on the success"
    assert_equal ["s"] * 4, states(flow).values
    assert_equal %w[4 0 0 0 0], Deckhand::Workflow.status(flow.id).values_at("succeeded", "dead", "failed", "cancelled", "open")
    ops = Deckhand::Workflow.ops(Deckhand.config)
    assert_equal "seen", ops.step(flow.id, "s", flaky.jid, "1"), "its success told twice releases nothing"
    assert_equal 0, redis.call("LLEN", "queue:default")
    assert_operator redis.call("PTTL", "deckhand:workflow:#{flow.id}"), :<=, Deckhand::Workflow::DONE_TTL * 1000
  end

  def test_the_api_lists_workflows_newest_first_and_a_workflows_steps_by_level_and_acts_on_them
    api = Deckhand::API.new
    older = Deckhand::Workflow.new("older")
    older.add(App::Note, "lone")
    older.push
    sleep 0.002 # a later creation time
    flow = Deckhand::Workflow.new("<b>import</b>")
    flaky = flow.add(App::DiesFirst, "flaky")
    parts = flow.add_many(App::Note, [["p1"], ["p2"]], after: flaky, name: "parts")
    flow.add(App::Note, "merge", after: [parts, flaky], name: "merge")
    flow.push
    assert_equal 2, api.workflows.size
    assert_equal [[flow.id, "<b>import</b>", "running", 4], [older.id, "older", "running", 1]],
      api.workflows.page(1, 10).map { |found| [found.id, found.description, found.state, found.counts["total"]] }
    assert_equal [older.id], api.workflows.page(2, 1).map(&:id)
    with_server do
      ended(flow)
      record = api.workflow(flow.id)
      assert_equal "failed", record.state
      assert_instance_of Time, record.ended_at
      assert_equal [["dead"], %w[cancelled cancelled], ["cancelled"]], record.levels.map { |steps| steps.map(&:state) }
      assert_equal [["WorkflowApp::DiesFirst"], %w[parts parts], ["merge"]], record.levels.map { |steps| steps.map(&:name) }
      assert_equal [flaky.jid], record.levels[1].first.parents
      assert_equal :success, record.levels[2].first.condition
      assert_equal "ArgumentError", record.steps.first.error["error_class"]
      assert_equal false, record.retry_step(record.levels[1].first.jid), "only a dead step is retried"
      # The workflow hears of a death before the dead set is written (a
      # final-failure handler): the entry to retry follows a moment later.
      wait_for(message: "the dead entry") { redis.call("ZRANGE", "dead", 0, -1).any? { |raw| raw.include?(flaky.jid) } }
      assert_equal true, record.retry_step(flaky.jid)
      wait_for(message: "the workflow's second end") { api.workflow(flow.id).state == "succeeded" }
    end
    assert_equal [%w[succeeded], %w[succeeded succeeded], %w[succeeded]], api.workflow(flow.id).levels.map { |steps| steps.map(&:state) }
    assert_equal :ended, api.workflow(flow.id).cancel
    assert_nil api.workflow("no-such-workflow")
  end

  # Marks each job with its configuration's name.
  class Mark
    def initialize(name) = @name = name

    def call(_klass, payload, _queue, _store)
      payload["marked_by"] = @name
      yield
    end
  end

  def test_a_workflow_given_its_own_config_builds_its_steps_with_it_alone
    own = Deckhand.config
    own.client_middleware.add(Mark, "its own")
    Deckhand.config = new_config(redis: {url: "redis://127.0.0.1:1/0", timeout: 0.2})
    Deckhand.config.client_middleware.add(Mark, "the default")
    flow = Deckhand::Workflow.new("elsewhere", config: own)
    first = flow.add(App::Note.set(queue: "default"), "first")
    flow.add(App::Note, "second", after: first)
    flow.push
    assert_equal [[first.jid, "its own"]], jobs_in("default").map { |job| job.values_at("jid", "marked_by") }
  ensure
    Deckhand.config = own
  end

  def test_a_dead_step_of_a_cancelled_workflow_retried_by_hand_does_not_run
    flow = Deckhand::Workflow.new("cancelled, then retried")
    flaky = flow.add(App::DiesFirst, "flaky")
    flow.add(App::Note, "alert", after: flaky, on: :failure, name: "alert")
    flow.add(App::Gated, "long", name: "long")
    flow.push
    with_server do
      wait_for(message: "the death and its alert") { labels.sort == %w[alert flaky long] && states(flow)[flaky.jid] == "d" }
      assert_equal 0, Deckhand::Workflow.cancel(flow.id), "nothing left to cancel but the running step"
      dead = Deckhand::API.new.dead
      dead.retry([dead.find_jid(flaky.jid)])
      wait_for(message: "the retried job taken") { redis.call("LLEN", "queue:default").zero? && redis.call("ZCARD", "dead").zero? }
      App.open_gate("long")
      assert_equal "cancelled", ended(flow)["state"]
    end
    assert_equal %w[alert flaky long], labels.sort, "the retried step did not run again"
    assert_equal "d", states(flow)[flaky.jid]
  end

  def test_client_cancel_of_a_queued_or_running_step_records_it_cancelled_in_its_workflow
    flow = Deckhand::Workflow.new("steps cancelled one by one")
    queued = flow.add(App::Note.set(queue: "later"), "queued", name: "queued")
    flow.add(App::Note, "after-queued", after: queued, name: "after_queued")
    on_end = flow.add(App::Note, "on-end", after: queued, on: :complete, name: "on_end")
    running = flow.add(App::Gated, "running", name: "running")
    flow.add(App::Note, "after-running", after: running, name: "after_running")
    flow.push
    assert_equal :removed_from_queue, Deckhand::Client.cancel(queued.jid)
    assert_equal({queued.jid => "c", on_end.jid => "q"}, states(flow).slice(queued.jid, on_end.jid))
    with_server do
      wait_for(message: "the gated step running") { Deckhand::API.new.running.any? { |r| r.job.jid == running.jid } }
      assert_equal :cancelling_running, Deckhand::Client.cancel(running.jid)
      assert_equal "succeeded", ended(flow)["state"]
    end
    assert_equal %w[on-end running], labels.sort
    assert_equal %w[1 4 0], Deckhand::Workflow.status(flow.id).values_at("succeeded", "cancelled", "open")
    assert_equal "c", states(flow)[running.jid]
    error = JSON.parse(redis.call("HGET", "deckhand:workflow:#{flow.id}:errors", running.jid))
    assert_equal ["Deckhand::Cancelled", "cancelled by hand (Client.cancel) while running"], error.values_at("error_class", "error_message")
  end
end
