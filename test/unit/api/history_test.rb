# frozen_string_literal: true

require_relative "../../support/iterable/iterable_helper"
require "deckhand/api"

# Fails at one item, and is retried only ten minutes later: its retry stays in
# the retry set (and its progress in Redis) while the test reads them.
class HistoryFailingJob
  include Deckhand::IterableJob

  deckhand_retry_in { |_count, _error, _payload| 600 }

  def build_enumerator(count, _fail_at, cursor:) = array_enumerator((0...count).to_a, cursor: cursor)

  def each_iteration(item, _count, fail_at)
    raise "item #{item} failed" if item == fail_at
  end
end

# Each run of an iterable job that ends interrupted is recorded in its
# it-<jid> hash ("dh_runs"): why it stopped, when, how far it came.
class IterableHistoryTest < Minitest::Test
  include IterableTestSetup

  def test_a_shutdown_records_the_run_with_its_steps_and_cursor
    jid = IterableJobs::GatedJob.perform_async(10)
    IterableJobs.open_gate(3)
    before = Time.now.to_f
    with_server(iterable_config(scheduler_interval: 600)) do
      wait_for(message: "four steps") { IterableJobs.ledger.size == 4 }
      wait_for(message: "the job at item 4") { IterableJobs.waiting == 4 }
      Deckhand::Lifecycle.stopping!
      IterableJobs.open_gate(4)
      wait_for(message: "the job to be put back") { redis.call("ZCARD", "schedule") == 1 }
    end
    run = sole_run(jid)
    assert_equal({"run" => 1, "reason" => "shutdown", "steps" => 5, "cursor" => "5"}, run.slice("run", "reason", "steps", "cursor"))
    assert_operator run["start"], :>=, before.floor
    assert_operator run["end"], :>=, run["start"]
    refute run.key?("error")
    assert_equal ["1", "5"], state(jid).values_at("ex", "c"), "Sidekiq's fields as before"
  end

  def test_an_error_records_its_class
    jid = HistoryFailingJob.perform_async(10, 4)
    with_server(iterable_config(scheduler_interval: 600)) do
      wait_for(message: "the retry") { redis.call("ZCARD", "retry") == 1 }
    end
    assert_equal [{"run" => 1, "reason" => "error", "error" => "RuntimeError", "steps" => 4, "cursor" => "4"}],
      runs(jid).map { |run| run.slice("run", "reason", "error", "steps", "cursor") }
  end

  def test_a_used_time_budget_records_time_budget
    jid = IterableJobs::BudgetJob.perform_async(100)
    with_server(iterable_config(scheduler_interval: 600)) do
      wait_for(message: "the job to be put back") { redis.call("ZCARD", "schedule") == 1 }
    end
    run = sole_run(jid)
    assert_equal "time_budget", run["reason"]
    assert_equal JSON.generate(run["steps"]), run["cursor"], "it stopped before the item after its last step"
    assert_operator run["steps"], :>=, 1
  end

  def test_the_history_keeps_the_last_twenty_runs
    jid = "0123456789abcdef01234567"
    earlier = (1..20).map { |n| {"run" => n, "start" => 1.0, "end" => 2.0, "reason" => "shutdown", "steps" => 1, "cursor" => n.to_s} }
    redis.call("HSET", "it-#{jid}", "ex", "20", "c", "3", "rt", "1.5", "dh_runs", JSON.generate(earlier))
    Deckhand::Client.push("class" => "IterableJobs::GatedJob", "args" => [10], "jid" => jid)
    IterableJobs.open_gate(4)
    with_server(iterable_config(scheduler_interval: 600)) do
      wait_for(message: "two steps") { IterableJobs.ledger.size == 2 }
      wait_for(message: "the job at item 5") { IterableJobs.waiting == 5 }
      Deckhand::Lifecycle.stopping!
      IterableJobs.open_gate(5)
      wait_for(message: "the job to be put back") { redis.call("ZCARD", "schedule") == 1 }
    end
    assert_equal (2..21).to_a, runs(jid).map { |run| run["run"] }, "the oldest run dropped"
    assert_equal({"reason" => "shutdown", "steps" => 3, "cursor" => "6"}, runs(jid).last.slice("reason", "steps", "cursor"))
  end

  def test_an_unreadable_history_starts_afresh
    jid = "0123456789abcdef01234567"
    redis.call("HSET", "it-#{jid}", "ex", "1", "c", "8", "rt", "1.5", "dh_runs", "{not json")
    Deckhand::Client.push("class" => "IterableJobs::GatedJob", "args" => [20], "jid" => jid)
    IterableJobs.open_gate(8)
    with_server(iterable_config(scheduler_interval: 600)) do
      wait_for(message: "one step") { IterableJobs.ledger.size == 1 }
      wait_for(message: "the job at item 9") { IterableJobs.waiting == 9 }
      Deckhand::Lifecycle.stopping!
      IterableJobs.open_gate(9)
      wait_for(message: "the job to be put back") { redis.call("ZCARD", "schedule") == 1 }
    end
    assert_equal [[2, "shutdown"]], runs(jid).map { |run| run.values_at("run", "reason") }
  end

  def test_a_completed_job_leaves_no_history
    jid = IterableJobs::CountJob.perform_async(5)
    with_server(iterable_config) { wait_for(message: "the job to complete") { IterableJobs.callbacks.include?("complete") } }
    assert_equal 0, redis.call("EXISTS", "it-#{jid}")
  end

  def test_a_long_cursor_is_cut_short_and_a_reason_must_be_known
    history = Deckhand::IterableJob::RunHistory.parse(nil)
    history.ended(run: 1, started_at: 1.0, reason: "shutdown", steps: 2, cursor: JSON.generate("x" * 500))
    assert_equal 200, history.runs.last["cursor"].size
    error = assert_raises(ArgumentError) { history.ended(run: 1, started_at: 1.0, reason: "bored", steps: 0, cursor: "1") }
    assert_match(/reason must be one of shutdown, interrupted, time_budget, error/, error.message)
  end

  def test_the_data_api_reads_the_runs_and_shrugs_off_fields_of_the_wrong_type
    jid = "0123456789abcdef01234567"
    runs = [{"run" => 1, "start" => 1_700_000_000.5, "end" => 1_700_000_010.25, "reason" => "error", "error" => "KeyError",
             "steps" => 7, "cursor" => %({"id":7})},
      {"run" => [1], "start" => "soon", "reason" => {"x" => 1}, "steps" => "many", "cursor" => 5}, "not a run"]
    redis.call("HSET", "it-#{jid}", "ex", "2", "c", "8", "rt", "1.5", "dh_runs", JSON.generate(runs))
    iteration = Deckhand::API.new(Deckhand.config).iterations([jid])[jid]
    assert_equal 2, iteration.interruptions
    first, odd = iteration.runs
    assert_equal [1, Time.at(1_700_000_000.5), Time.at(1_700_000_010.25), "error", "KeyError", 7, {"id" => 7}, %({"id":7})],
      [first.number, first.started_at, first.ended_at, first.reason, first.error, first.steps, first.cursor, first.cursor_json]
    assert_equal [0, nil, 0, nil, "null"], [odd.number, odd.started_at, odd.steps, odd.cursor, odd.cursor_json]
  end

  private

  def sole_run(jid)
    assert_equal 1, runs(jid).size, "one run recorded"
    runs(jid).first
  end

  def runs(jid) = JSON.parse(redis.call("HGET", "it-#{jid}", "dh_runs") || "[]")
end
