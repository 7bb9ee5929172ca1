# frozen_string_literal: true

require_relative "e2e_helper"
require_relative "apps/iterable_app"

# Iterable jobs on the real CLI: a deploy (TERM) midway, a time budget, a
# cancel and a failure, each resumed from the saved cursor.
class IterableE2ETest < Minitest::Test
  include Deckhand::E2EHelpers

  APP = File.expand_path("apps/iterable_app.rb", __dir__)
  FAST = "scheduler_interval: 0.2\nheartbeat_interval: 0.5\n"

  def test_term_midway_then_restart_processes_every_item_with_the_cursor_kept
    jid = E2E::Iterable::HoldJob.perform_async(10_000, 0.0005, [4_999, 7_499])
    cli = deckhand("-c", "2", "-t", "10", "-C", config_file(FAST), app: APP)
    wait_for(message: "half the items", timeout: 30) { redis.call("GET", "iterable:holding") == "4999" }
    cli.signal("TERM")
    assert_equal 0, cli.wait_exit(timeout: 20).exitstatus
    stopped_at = ledger_size
    assert_equal 5_000, stopped_at, "it stops after the step under way"
    saved = redis.call("HGETALL", "it-#{jid}")
    assert_equal [1, stopped_at], [saved["ex"].to_i, JSON.parse(saved["c"])], "the cursor of the next item is saved"
    assert_equal [jid], zset("schedule").map { |job, _| job["jid"] }, "put back, due now"
    assert_nil zset("schedule").first.first["retry_count"], "no retry consumed"
    assert_equal %w[start stop], callbacks

    # Restarted, it resumes; a second deploy stops it again: its history lists both runs.
    cli = deckhand("-c", "2", "-t", "10", "-C", config_file(FAST), app: APP)
    wait_for(message: "three quarters of the items", timeout: 30) { redis.call("GET", "iterable:holding") == "7499" }
    cli.signal("TERM")
    assert_equal 0, cli.wait_exit(timeout: 20).exitstatus
    runs = JSON.parse(redis.call("HGET", "it-#{jid}", "dh_runs"))
    assert_equal [[1, "shutdown", 5_000, "5000"], [2, "shutdown", 2_500, "7500"]],
      runs.map { |run| run.values_at("run", "reason", "steps", "cursor") }
    assert_operator runs[0]["end"], :<=, runs[1]["start"], "the runs in order"
    assert_equal "2", redis.call("HGET", "it-#{jid}", "ex"), "Sidekiq's fields as before"

    deckhand("-c", "2", "-C", config_file(FAST), app: APP)
    wait_for(message: "the job to complete", timeout: 60) { callbacks.include?("complete") }
    assert_every_item_once(10_000, interruptions: 2)
    assert_equal %w[start stop resume stop resume stop complete], callbacks
    assert_equal 0, redis.call("EXISTS", "it-#{jid}")
  end

  def test_a_step_cut_short_by_the_shutdown_timeout_saves_its_cursor_and_runs_again
    jid = E2E::Iterable::LongStepJob.perform_async(100, 0.001, 40)
    cli = deckhand("-c", "1", "-t", "1", "-C", config_file(FAST), app: APP)
    wait_for(message: "the long step", timeout: 30) { redis.call("GET", "iterable:long-step") }
    cli.signal("TERM")
    assert_equal 0, cli.wait_exit(timeout: 15).exitstatus
    assert_equal (0...40).to_a, ledger
    assert_equal 40, JSON.parse(redis.call("HGET", "it-#{jid}", "c")), "the cursor of the step cut short"
    assert_equal [[1, "shutdown", 40, "40"]], JSON.parse(redis.call("HGET", "it-#{jid}", "dh_runs")).map { |run| run.values_at("run", "reason", "steps", "cursor") }
    assert_equal [jid], jobs_in("default").map { |job| job["jid"] }, "handed back to its queue"

    boot_app("-c", "1", "-C", config_file(FAST))
    wait_for(message: "the job to complete", timeout: 30) { callbacks.include?("complete") }
    assert_every_item_once(100, interruptions: 1)
    assert_equal %w[start resume stop complete], callbacks, "no on_stop for a run cut short"
  end

  def test_max_iteration_runtime_stops_and_resumes_until_done
    jid = E2E::Iterable::BudgetJob.perform_async(150, 0.01)
    boot_app("-c", "2", "-C", config_file(FAST))
    wait_for(message: "the job to complete", timeout: 60) { callbacks.include?("complete") }
    runs = callbacks.count("resume") + 1
    assert_operator runs, :>=, 2, "1.5 s of steps do not fit a 0.3 s budget"
    assert_every_item_once(150, interruptions: runs - 1)
    assert_equal 0, redis.call("EXISTS", "it-#{jid}")
    assert_equal [0, 0], [redis.call("ZCARD", "retry"), redis.call("ZCARD", "dead")]
  end

  def test_cancel_stops_the_running_job_without_error
    jid = E2E::Iterable::WalkJob.perform_async(100_000, 0.001)
    cli = boot_app("-c", "2", "-C", config_file(FAST))
    wait_for(message: "some steps", timeout: 30) { ledger_size >= 10 }
    Deckhand::Client.cancel!(jid)
    wait_for(message: "on_cancel (checked every 5 s)", timeout: 20) { callbacks.include?("cancel") }
    assert_equal %w[start stop cancel], callbacks
    assert_operator ledger_size, :<, 100_000
    assert_equal 0, redis.call("EXISTS", "it-#{jid}")
    assert_equal [0, 0, 0], %w[retry dead schedule].map { |set| redis.call("ZCARD", set) }
    assert cli.alive?
  end

  def test_an_error_midway_retries_and_resumes_from_the_saved_cursor
    jid = E2E::Iterable::FailOnceJob.perform_async(200, 0.001, 120)
    boot_app("-c", "2", "-C", config_file(FAST))
    wait_for(message: "the job to complete", timeout: 60) { callbacks.include?("complete") }
    assert_every_item_once(200, interruptions: 0)
    assert_equal %w[start resume stop complete], callbacks
    assert_equal 0, redis.call("EXISTS", "it-#{jid}")
  end

  private

  def boot_app(*args) = deckhand(*args, app: APP).tap(&:identity)

  def ledger = redis.call("LRANGE", E2E::Iterable::LEDGER, 0, -1).map(&:to_i)

  def ledger_size = redis.call("LLEN", E2E::Iterable::LEDGER)

  def callbacks = redis.call("LRANGE", E2E::Iterable::CALLBACKS, 0, -1)

  # Every item ran, in order; at most one item twice per interruption.
  def assert_every_item_once(count, interruptions:)
    seen = ledger
    assert_equal (0...count).to_a, seen.uniq.sort, "every item processed"
    assert_operator seen.size - count, :<=, interruptions, "at most one item twice per interruption"
  end
end
