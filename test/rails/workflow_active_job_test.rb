# frozen_string_literal: true

require_relative "rails_helper"
require "deckhand/workflow"
require_relative "../support/workflow/ended"

# Active Job classes as workflow steps (docs/workflows.md): built by their
# own perform_later through Deckhand's adapter, each step runs once, its
# return value is its result, retry_on keeps it the same step, and its
# chunks end each member's step with the member's own result.
class WorkflowActiveJobTest < Minitest::Test
  include Deckhand::RailsTestApp
  include Deckhand::WorkflowEnded

  # Seen on JRuby 9.4 in about half the runs (a step added before the push,
  # one added at run time, retry_on's enqueue alike): Active Job's
  # perform_later, given keywords, serializes them as a positional Hash, so
  # perform(label, count:) raises ArgumentError. MRI keeps them.
  JRUBY_KEYWORDS = "JRuby 9.4 passes Active Job's perform_later a job's keywords as a plain Hash in some runs"

  def setup
    super
    Deckhand.config = rails_config(concurrency: 4, scheduler_interval: 0.02)
    Deckhand::Workflow.install(Deckhand.config)
  end

  def steps(flow) = Deckhand::Workflow.steps(flow.id).values.to_h { |step| [JSON.parse(step["info"])["name"], step["state"]] }

  def test_active_job_steps_run_once_and_their_values_are_their_results
    flow = Deckhand::Workflow.new("active job")
    first = flow.add(RailsJobs::StepJob, "first", 1, name: "first")
    parts = flow.add_many(RailsJobs::StepJob.set(queue: "default"), [["a", 2], ["b", 3]], after: first, name: "parts")
    flow.add(RailsJobs::StepJob, "last", 4, after: parts, name: "last")
    flow.push
    with_server { assert_equal "succeeded", ended(flow)["state"] }
    runs = recorded.select { |entry| entry.first == "step" }.map { |_, label, results| [label, results] }
    assert_equal [["first", []]], runs.first(1)
    assert_equal [["a", [{"label" => "first", "n" => 1}]], ["b", [{"label" => "first", "n" => 1}]]], runs[1, 2].sort_by(&:first)
    assert_equal [["last", [{"label" => "a", "n" => 2}, {"label" => "b", "n" => 3}]]], runs.drop(3)
    assert_equal({"first" => "s", "parts" => "s", "last" => "s"}, steps(flow))
    info = JSON.parse(Deckhand::Workflow.steps(flow.id).values.first["info"])
    assert_equal "RailsJobs::StepJob", info["class"]
  end

  def test_a_step_retried_by_retry_on_stays_the_same_step_and_ends_once_with_its_last_value
    flow = Deckhand::Workflow.new("retry_on")
    flaky = flow.add(RailsJobs::FlakyStepJob, "flaky", name: "flaky")
    flow.add(RailsJobs::StepJob, "after", 1, after: flaky, name: "after")
    flow.push
    with_server { assert_equal "succeeded", ended(flow)["state"] }
    entries = recorded
    assert_equal [["flaky-step", "flaky", 1], ["flaky-step", "flaky", 2]], entries.select { |entry| entry.first == "flaky-step" }
    assert_equal [["step", "after", ["flaky after 2 runs"]]], entries.select { |entry| entry.first == "step" }, "released once, after the retry succeeded"
    assert_equal({"flaky" => "s", "after" => "s"}, steps(flow))
    assert_equal %w[2 2], Deckhand::Workflow.status(flow.id).values_at("total", "succeeded")
    assert_equal 0, redis.call("ZCARD", "schedule")
  end

  def test_active_job_chunk_members_end_their_own_steps_with_their_own_results
    flow = Deckhand::Workflow.new("active job chunks")
    parts = flow.add_many(RailsJobs::ChunkedStepJob, [[1], [2], [3]], name: "parts")
    flow.add(RailsJobs::StepJob, "sum", 0, after: parts, name: "sum")
    flow.push
    with_server { assert_equal "succeeded", ended(flow)["state"] }
    entries = recorded
    assert_equal [[1], [2], [3]], entries.select { |entry| entry.first == "chunk" }.flat_map(&:last).sort
    assert_equal [["step", "sum", [2, 4, 6]]], entries.select { |entry| entry.first == "step" }
  end

  # What perform_later(*args) pushes for the class: its Active Job arguments.
  def perform_later_arguments(klass, *args)
    job = klass.perform_later(*args)
    raw = redis.call("LRANGE", "queue:#{job.queue_name}", 0, -1).find { |entry| JSON.parse(entry)["args"][0]["job_id"] == job.job_id }
    redis.call("LREM", "queue:#{job.queue_name}", 1, raw)
    JSON.parse(raw)["args"][0]["arguments"]
  end
  ruby2_keywords :perform_later_arguments

  def step_arguments(flow, ref)
    jobs = Deckhand.config.store.layout.workflows.jobs(flow.id)
    ref.jids.map { |jid| JSON.parse(redis.call("HGET", jobs, jid))["args"][0]["arguments"] }
  end

  def test_keyword_arguments_reach_perform_as_perform_later_passes_them
    skip_on_jruby(JRUBY_KEYWORDS)
    klass = RailsJobs::KeywordStepJob
    flow = Deckhand::Workflow.new("keywords")
    one = flow.add(klass, "one", count: 1, tag: "add", name: "one")
    many = flow.add_many(klass.set(queue: "default"), [Deckhand::Workflow.args("two", count: 2), Deckhand::Workflow.args("three", count: 3, after: "kept")],
      after: one, name: "many")
    flow.add(RailsJobs::KeywordFanOutJob, "grow", after: many, name: "grow")
    flow.push
    assert_equal [perform_later_arguments(klass, "one", count: 1, tag: "add")], step_arguments(flow, one)
    assert_equal [perform_later_arguments(klass, "two", count: 2), perform_later_arguments(klass, "three", count: 3, after: "kept")], step_arguments(flow, many)
    with_server { assert_equal "succeeded", ended(flow)["state"] }
    entries = recorded
    assert_equal [["keywords", "grow-one", 1, "current", {}], ["keywords", "grow-two", 2, "none", {name: "kept"}],
      ["keywords", "one", 1, "add", {}], ["keywords", "three", 3, "none", {after: "kept"}], ["keywords", "two", 2, "none", {}]],
      entries.select { |entry| entry.first == "keywords" }.sort_by { |entry| entry[1] }
    states = Deckhand::Workflow.steps(flow.id).values.map { |step| [JSON.parse(step["info"])["name"], step["state"]] }.sort
    assert_equal [["RailsJobs::KeywordStepJob", "s"], ["RailsJobs::KeywordStepJob", "s"], ["grow", "s"], ["many", "s"], ["many", "s"], ["one", "s"]], states
  end

  def test_a_keyword_step_retried_by_retry_on_keeps_its_keywords
    skip_on_jruby(JRUBY_KEYWORDS)
    flow = Deckhand::Workflow.new("keywords")
    flaky = flow.add(RailsJobs::FlakyKeywordStepJob, "flaky", count: 5, name: "flaky")
    flow.push
    with_server { assert_equal "succeeded", ended(flow)["state"] }
    assert_equal [["flaky-keywords", "flaky", 5, 1], ["flaky-keywords", "flaky", 5, 2]], recorded.select { |entry| entry.first == "flaky-keywords" }
    assert_equal "5", redis.call("HGET", Deckhand.config.store.layout.workflows.results(flow.id), flaky.jids.first), "its result, after its retry"
  end

  def test_a_hash_given_as_a_hash_stays_positional
    klass = RailsJobs::KeywordStepJob
    flow = Deckhand::Workflow.new("positional")
    positional = flow.add_many(klass, [["four", {count: 4}], ["five", {"count" => 5}]])
    flow.push
    assert_equal [perform_later_arguments(klass, "four", {count: 4}), perform_later_arguments(klass, "five", {"count" => 5})], step_arguments(flow, positional)
    refute_includes step_arguments(flow, positional).to_s, "_aj_ruby2_keywords"
  end

  def test_a_class_on_another_adapter_is_refused_at_the_add
    klass = Class.new(RailsJobs::StepJob) { self.queue_adapter = :inline }
    error = assert_raises(ArgumentError) { Deckhand::Workflow.new.add(klass, "x", 1) }
    assert_includes error.message, "a workflow step runs on Deckhand's"
    assert_includes error.message, "queue_adapter = :deckhand"
  end
end
