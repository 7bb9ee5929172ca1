# frozen_string_literal: true

require_relative "e2e_helper"
require "support/reliability_helpers"
require "support/workflow/workflow_app"

# Real server processes SIGKILLed inside a workflow: while a step runs, and
# between the record of a step's success (which released what waits for
# it) and its job's acknowledgement. Survivors recover the job; every step
# after it runs once, and the workflow ends.
class WorkflowKillTest < Minitest::Test
  include Deckhand::E2EHelpers
  include Deckhand::ReliabilityHelpers

  APP = File.expand_path("../support/workflow/workflow_kill_app.rb", __dir__)
  TTL = 1

  def setup
    super
    wait_for_redis_uptime(TTL)
    @config = config_file("heartbeat_interval: 0.2\nheartbeat_ttl: #{TTL}\n")
    Deckhand::Workflow.install(Deckhand.config)
  end

  def worker(threads: 2)
    cli = deckhand("-C", @config, "-c", threads.to_s, app: APP)
    cli.identity
    cli
  end

  def test_steps_after_a_step_whose_process_was_killed_run_once_and_the_workflow_ends
    flow = Deckhand::Workflow.new("killed")
    start = flow.add(WorkflowApp::Note, "start", name: "start")
    during = flow.add(WorkflowApp::KilledWhileRunning, "during", after: start)
    after = flow.add(WorkflowApp::Note, "kill-after", after: during, name: "kill_after")
    fan = flow.add_many(WorkflowApp::Note, [["fan-0"], ["fan-1"], ["fan-2"]], after: after, name: "fan")
    flow.add(WorkflowApp::Note, "end", after: fan, name: "end")
    flow.push
    clis = [worker, worker]
    dead = []
    # The workflow may end before the process killed after its step's
    # success was recorded is seen dead: wait for both.
    ending = wait_for(timeout: 60, message: "the workflow's end and two processes killed") do
      clis.reject(&:alive?).each do |cli|
        dead << cli
        clis[clis.index(cli)] = worker
      end
      raw = redis.call("LINDEX", "deckhand:workflow:#{flow.id}:done", 0)
      raw && dead.size == 2 && JSON.parse(raw)
    end
    wait_for(timeout: 30, message: "the killed processes' jobs recovered and settled") do
      dead.all? { |cli| inflight_keys(cli.identity).empty? } && redis.call("LLEN", "queue:default").zero? &&
        clis.all? { |cli| inflight_count(cli.identity).zero? }
    end
    assert_equal "succeeded", ending["state"]
    assert_equal 2, dead.size
    labels = WorkflowApp.runs.map(&:first)
    assert_equal %w[during during end fan-0 fan-1 fan-2 kill-after start], labels.sort,
      "the step killed while it ran ran twice; the one killed after its success was recorded, once; every other step once"
    assert_equal %w[during], WorkflowApp.runs.map(&:first).select { |label| labels.count(label) > 1 }.uniq
    assert_equal "7", Deckhand::Workflow.status(flow.id)["succeeded"]
    assert_equal 0, redis.call("LLEN", "queue:default")
  end

  # Inside a sub-workflow: a step killed while it runs, and the last step
  # killed after its success was recorded, which ended the sub-workflow and
  # released the step after it. That step runs once.
  def test_the_step_after_a_sub_workflow_whose_last_step_was_killed_runs_once
    part = Deckhand::Workflow.new("part")
    during = part.add(WorkflowApp::KilledWhileRunning, "during-inner")
    part.add(WorkflowApp::Note, "kill-after-inner", after: during, name: "kill_after")
    part.add(WorkflowApp::Note, "beside", name: "beside")
    flow = Deckhand::Workflow.new("killed inside")
    sub = flow.add_workflow(part, after: flow.add(WorkflowApp::Note, "start", name: "start"))
    merge = flow.add(WorkflowApp::Note, "merge", after: sub, name: "merge")
    flow.add(WorkflowApp::Note, "end", after: merge, name: "end")
    flow.push
    clis = [worker, worker]
    dead = []
    ending = wait_for(timeout: 60, message: "the workflow's end and two processes killed") do
      clis.reject(&:alive?).each do |cli|
        dead << cli
        clis[clis.index(cli)] = worker
      end
      raw = redis.call("LINDEX", "deckhand:workflow:#{flow.id}:done", 0)
      raw && dead.size == 2 && JSON.parse(raw)
    end
    wait_for(timeout: 30, message: "the killed processes' jobs recovered and settled") do
      dead.all? { |cli| inflight_keys(cli.identity).empty? } && redis.call("LLEN", "queue:default").zero? &&
        clis.all? { |cli| inflight_count(cli.identity).zero? }
    end
    assert_equal "succeeded", ending["state"]
    runs = WorkflowApp.runs
    assert_equal %w[beside during-inner during-inner end kill-after-inner merge start], runs.map(&:first).sort,
      "the step killed while it ran ran twice; every other step once, the one after the sub-workflow included"
    assert_equal %w[during-inner kill-after-inner beside], runs.find { |label, _| label == "merge" }.last
    assert_equal %w[6 6], Deckhand::Workflow.status(flow.id).values_at("total", "succeeded")
  end

  # Killed after its add was recorded, before its end: the step runs again,
  # its add finds its steps there, and each of them runs once.
  def test_a_step_killed_after_adding_steps_adds_nothing_twice_when_it_runs_again
    flow = Deckhand::Workflow.new("split and killed")
    split = flow.add(WorkflowApp::Splitter, 9, 3, "die")
    flow.add(WorkflowApp::Merge, 9, after: split)
    flow.push
    # One thread each: a part the splitter releases cannot start beside it
    # in the process it kills (that part would rightly run again).
    clis = [worker(threads: 1), worker(threads: 1)]
    ending = wait_for(timeout: 60, message: "the workflow's end after a process was killed") do
      clis.each_with_index { |cli, i| clis[i] = worker(threads: 1) unless cli.alive? }
      raw = redis.call("LINDEX", "deckhand:workflow:#{flow.id}:done", 0)
      raw && JSON.parse(raw)
    end
    assert_equal "succeeded", ending["state"]
    runs = WorkflowApp.runs
    assert_equal [[9, 4], [9, 0]], runs.filter_map { |label, args| args if label == "split" }, "the rerun's add added nothing"
    assert_equal %w[merge part part part split split tally], runs.map(&:first).sort
    assert_equal [9, (0...3).map { |i| {"part" => i, "rows" => 10 * i} }], runs.find { |label, _| label == "merge" }.last
    assert_equal %w[6 6], Deckhand::Workflow.status(flow.id).values_at("total", "succeeded")
  end
end
