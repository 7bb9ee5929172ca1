# frozen_string_literal: true

require_relative "../../support/iterable/iterable_helper"

# Iterable jobs on a server in this process: whole runs, resuming from saved
# state, stopping between steps, time budgets, errors and cancellation.
class IterableJobTest < Minitest::Test
  include IterableTestSetup

  def test_walks_every_item_once_then_forgets_its_state
    jid = IterableJobs::CountJob.perform_async(25)
    with_server(iterable_config) do
      wait_for(message: "the job to complete") { IterableJobs.callbacks.include?("complete") }
    end
    assert_equal (0...25).to_a, IterableJobs.ledger
    assert_equal %w[start stop complete], IterableJobs.callbacks
    assert_empty state(jid), "completed: its state is deleted"
    assert_equal [0, 0, 0], [redis.call("ZCARD", "retry"), redis.call("ZCARD", "schedule"), redis.call("LLEN", "queue:default")]
  end

  def test_resumes_from_the_state_an_earlier_run_saved
    jid = "0123456789abcdef01234567"
    redis.call("HSET", "it-#{jid}", "ex", "1", "c", "6", "rt", "1.5")
    Deckhand::Client.push("class" => "IterableJobs::CountJob", "args" => [10], "jid" => jid)
    with_server(iterable_config) do
      wait_for(message: "the job to complete") { IterableJobs.callbacks.include?("complete") }
    end
    assert_equal [6, 7, 8, 9], IterableJobs.ledger
    assert_equal %w[resume stop complete], IterableJobs.callbacks
  end

  def test_readers_show_the_item_its_cursor_and_the_arguments
    IterableJobs::ReaderJob.perform_async("label")
    with_server(iterable_config) { wait_for(message: "two steps") { IterableJobs.ledger.size == 2 } }
    steps = redis.call("LRANGE", IterableJobs::LEDGER, 0, -1).map { |raw| JSON.parse(raw) }
    assert_equal [["a", 0, "a", ["label"], "label"], ["b", 1, "b", ["label"], "label"]], steps
  end

  def test_stopping_server_interrupts_between_steps_and_puts_the_job_back_unchanged
    jid = IterableJobs::GatedJob.perform_async(10)
    pushed = redis.call("LINDEX", "queue:default", 0)
    IterableJobs.open_gate(3)
    with_server(iterable_config(scheduler_interval: 600)) do
      wait_for(message: "four steps") { IterableJobs.ledger.size == 4 }
      wait_for(message: "the job at item 4") { IterableJobs.waiting == 4 }
      Deckhand::Lifecycle.stopping! # what TERM does
      IterableJobs.open_gate(4)
      wait_for(message: "the job to be put back") { redis.call("ZCARD", "schedule") == 1 }
    end
    assert_equal [0, 1, 2, 3, 4], IterableJobs.ledger, "it stops after the step under way"
    assert_equal %w[start stop], IterableJobs.callbacks
    entry, score = redis.call("ZRANGE", "schedule", 0, -1, "WITHSCORES").first
    assert_equal pushed, entry, "the payload goes back byte for byte: no retry consumed"
    assert_in_delta Time.now.to_f, score.to_f, 60, "due at once"
    assert_equal 0, redis.call("ZCARD", "retry")
    saved = state(jid)
    assert_equal ["1", "5"], [saved["ex"], saved["c"]], "the cursor of the next item, saved"
    assert_operator redis.call("TTL", "it-#{jid}"), :>, 29 * 86_400

    Deckhand::Lifecycle.reset!
    IterableJobs.open_gate(10)
    with_server(iterable_config) do
      wait_for(message: "the job to complete") { IterableJobs.callbacks.include?("complete") }
    end
    assert_equal (0...10).to_a, IterableJobs.ledger, "every item once"
    assert_equal %w[start stop resume stop complete], IterableJobs.callbacks
    assert_empty state(jid)
  end

  def test_max_iteration_runtime_interrupts_and_resumes_until_done
    jid = IterableJobs::BudgetJob.perform_async(40)
    with_server(iterable_config) do
      wait_for(message: "the job to complete", timeout: 20) { IterableJobs.callbacks.include?("complete") }
    end
    assert_equal (0...40).to_a, IterableJobs.ledger, "every item once, across runs"
    runs = IterableJobs.callbacks.count { |c| %w[start resume].include?(c) }
    assert_operator runs, :>, 1, "40 steps of 20 ms cannot fit one 200 ms budget"
    assert_equal ["start"] + ["resume"] * (runs - 1), IterableJobs.callbacks.select { |c| %w[start resume].include?(c) }
    assert_empty state(jid)
    assert_equal 0, redis.call("ZCARD", "retry")
    assert_equal 0, redis.call("GET", "stat:failed").to_i, "an interruption is no failure"
    assert_operator redis.call("GET", "stat:processed").to_i, :>=, runs
  end

  def test_the_configurations_max_iteration_runtime_applies_to_classes_without_one
    IterableJobs::ConfigBudgetJob.perform_async(40)
    # A job reads the process's configuration, which a server's is.
    Deckhand.config = iterable_config(max_iteration_runtime: 0.2)
    with_server(Deckhand.config) do
      wait_for(message: "the job to complete", timeout: 20) { IterableJobs.callbacks.include?("complete") }
    end
    assert_equal (0...40).to_a, IterableJobs.ledger, "every item once, across runs"
    assert_operator IterableJobs.callbacks.count("resume"), :>, 0, "40 steps of 20 ms cannot fit one 200 ms budget"
  end

  def test_a_job_that_says_it_is_interrupted_stops_and_resumes
    IterableJobs::PoliteJob.perform_async(7)
    with_server(iterable_config) do
      wait_for(message: "the job to complete") { IterableJobs.callbacks.include?("complete") }
    end
    assert_equal (0...7).to_a, IterableJobs.ledger, "every item once, across runs"
    assert_equal %w[start stop resume stop resume stop complete], IterableJobs.callbacks
  end

  def test_max_iteration_runtime_is_a_positive_number_or_nil
    error = assert_raises(Deckhand::ConfigError) { Deckhand::Config.new(max_iteration_runtime: 0) }
    assert_match(/max_iteration_runtime must be a positive number of seconds or nil, got 0/, error.message)
    assert_nil Deckhand::Config.new.max_iteration_runtime
  end

  def test_an_error_retries_and_resumes_from_the_failing_item
    jid = IterableJobs::FailingJob.perform_async(12, 7)
    with_server(iterable_config) do
      wait_for(message: "the job to complete") { IterableJobs.callbacks.include?("complete") }
    end
    assert_equal (0...12).to_a, IterableJobs.ledger, "the items before the failure are not run again"
    assert_equal %w[start resume stop complete], IterableJobs.callbacks
    assert_empty state(jid)
  end

  def test_a_job_that_says_it_is_interrupted_stops_between_steps_and_resumes
    jid = IterableJobs::ThirdsJob.perform_async(7)
    with_server(iterable_config) do
      wait_for(message: "the job to complete") { IterableJobs.callbacks.include?("complete") }
    end
    assert_equal (0...7).to_a, IterableJobs.ledger, "every item once, three a run"
    assert_equal %w[start stop resume stop resume stop complete], IterableJobs.callbacks
    assert_empty state(jid)
    assert_equal [0, 0], [redis.call("ZCARD", "retry"), redis.call("GET", "stat:failed").to_i], "an interruption is no failure"
  end

  def test_cancel_on_an_instance_is_seen_by_that_instance_at_once
    job = IterableJobs::CountJob.new
    job.jid = "c" * 24
    refute job.cancelled?
    first = job.cancel!
    assert job.cancelled?
    assert_equal first, job.cancel!, "the first cancellation counts"
    refute IterableJobs::CountJob.new.tap { |other| other.jid = job.jid }.cancelled?, "another instance learns it when it runs"
  end

  def test_cancelled_before_it_runs_it_ends_with_on_cancel
    jid = IterableJobs::CountJob.perform_async(5)
    assert_kind_of Integer, Deckhand::Client.cancel!(jid)
    with_server(iterable_config) do
      wait_for(message: "on_cancel") { IterableJobs.callbacks.include?("cancel") }
    end
    assert_empty IterableJobs.ledger
    assert_equal ["cancel"], IterableJobs.callbacks
    assert_empty state(jid)
    assert_equal [0, 0, 0], [redis.call("ZCARD", "retry"), redis.call("ZCARD", "dead"), redis.call("ZCARD", "schedule")]
  end

  def test_cancelled_while_it_runs_it_stops_at_its_next_save
    jid = IterableJobs::SlowStepJob.perform_async(1000) # 20 s of steps; saves every 5 s
    with_server(iterable_config) do
      wait_for(message: "two steps") { IterableJobs.ledger.size >= 2 }
      first = Deckhand::IterableJob.cancel!(jid)
      assert_equal first, Deckhand::Client.cancel!(jid), "the first cancellation counts"
      wait_for(message: "on_cancel", timeout: 15) { IterableJobs.callbacks.include?("cancel") }
    end
    assert_operator IterableJobs.ledger.size, :<, 1000
    assert_equal %w[start stop cancel], IterableJobs.callbacks
    assert_empty state(jid)
    assert_equal [0, 0, 0], [redis.call("ZCARD", "retry"), redis.call("ZCARD", "dead"), redis.call("ZCARD", "schedule")]
  end

  def test_cancel_on_a_job_object_marks_its_jid_and_the_object_says_so
    job = IterableJobs::CountJob.new
    job.jid = "0123456789abcdef0123cafe"
    refute job.cancelled?
    first = job.cancel!
    assert_kind_of Integer, first
    assert job.cancelled?
    assert_equal first, job.cancel!, "the first cancellation counts"
    assert_equal first.to_s, state(job.jid)["cancelled"]
  end

  def test_a_run_shorter_than_a_millisecond_adds_to_the_runtime_saved
    saved = {}
    states = Object.new
    states.define_singleton_method(:load) { |_jid| {} }
    states.define_singleton_method(:flush) { |_jid, **progress| saved.update(progress) && nil }
    state = Deckhand::IterableJob::State.new(states, "0123456789abcdef0123cafe")
    state.start!
    sleep 0.0001
    state.flush
    assert_operator saved.fetch(:runtime), :>, 0
    assert_operator saved.fetch(:runtime), :<, 1
  end

  def test_throw_abort_ends_the_job_as_complete
    IterableJobs::AbortingJob.perform_async
    with_server(iterable_config) do
      wait_for(message: "the job to complete") { IterableJobs.callbacks.include?("complete") }
    end
    assert_equal [0, 1], IterableJobs.ledger
    assert_equal %w[start stop complete], IterableJobs.callbacks
  end
end
