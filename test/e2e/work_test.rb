# frozen_string_literal: true

require_relative "e2e_helper"

# Jobs pushed by the application run on the real CLI, on the right threads.
class WorkTest < Minitest::Test
  include Deckhand::E2EHelpers

  def test_bulk_jobs_pushed_before_and_after_boot_run_exactly_once
    E2E::CountJob.perform_bulk((0...5_000).zip) # [[0], [1], ...]: one argument each
    cli = boot("-c", "10")
    E2E::CountJob.perform_bulk((5_000...10_000).zip)
    wait_for(timeout: 60, message: "10,000 jobs to run") { redis.call("HLEN", "e2e:counts") == 10_000 }
    wait_for(message: "the last acknowledgements") { inflight_keys(cli.identity).empty? }
    assert_equal 0, redis.call("LLEN", "queue:default")
    assert_equal (0...10_000).to_a, counts.keys.sort
    assert_equal [1], counts.values.uniq, "some jobs ran more than once"
  end

  def test_strict_queues_drain_in_the_order_given
    E2E::TraceJob.set(queue: "low").perform_bulk((1..20).map { |n| ["low-#{n}"] })
    E2E::TraceJob.set(queue: "high").perform_bulk((1..20).map { |n| ["high-#{n}"] })
    boot("-c", "1", "-q", "high", "-q", "low")
    wait_for(message: "40 jobs") { trace.size == 40 }
    assert_equal (1..20).map { |n| "high-#{n}" } + (1..20).map { |n| "low-#{n}" }, trace.map { |t| t["label"] }
  end

  # Weight 3 against 1: while both queues have jobs, about three jobs in
  # four come from the heavy one, whatever the size of the batches fetched
  # (each splits by weight), so both progress together, the heavy one faster.
  def test_weighted_queues_interleave_favouring_the_heavier
    E2E::TraceJob.set(queue: "light").perform_bulk((1..200).map { |n| ["light-#{n}"] })
    E2E::TraceJob.set(queue: "heavy").perform_bulk((1..200).map { |n| ["heavy-#{n}"] })
    boot("-c", "1", "-q", "heavy,3", "-q", "light,1")
    wait_for(message: "400 jobs") { trace.size == 400 }
    first_half = trace.first(200).map { |t| t["queue"] }
    assert_includes first_half, "light", "the light queue waited for the heavy one to empty: strict, not weighted"
    assert_includes 120..185, first_half.count("heavy"), "about 150 of the first 200 jobs should be heavy ones"
  end

  def test_capsule_queues_run_on_the_capsules_threads
    cli = boot("-c", "2", "-q", "default", "-g", "cpu:1:reports,exports")
    %w[default reports exports].each do |queue|
      E2E::TraceJob.set(queue: queue).perform_bulk((1..10).map { |n| ["#{queue}-#{n}"] })
    end
    wait_for(message: "30 jobs") { trace.size == 30 }
    threads = trace.group_by { |t| t["queue"] }.transform_values { |runs| runs.map { |t| t["thread"] }.uniq.sort }
    assert_equal ["deckhand-cpu-0"], threads["reports"]
    assert_equal ["deckhand-cpu-0"], threads["exports"]
    threads["default"].each { |name| assert_match(/\Adeckhand-default-[01]\z/, name) }
    capsules = process_info(cli.identity)["capsules"]
    assert_equal({"concurrency" => 1, "mode" => "strict", "queues" => %w[reports exports], "weights" => {"reports" => 0, "exports" => 0}},
      capsules["cpu"])
  end

  def test_perform_in_runs_two_to_seven_seconds_later
    boot
    pushed_at = Time.now.to_f
    jid = E2E::ClockJob.perform_in(2)
    ran_at = wait_for(timeout: 15, message: "the scheduled job") { redis.call("HGET", "e2e:clock", jid) }.to_f
    delay = ran_at - pushed_at
    assert_operator delay, :>=, 2.0
    assert_operator delay, :<=, 7.0
  end

  def test_unknown_job_class_is_a_failure_that_retries
    cli = boot
    jid = Deckhand::Client.push("class" => "E2E::NoSuchJob", "args" => [1])
    job, = wait_for(message: "the retry entry") { zset("retry").first }
    assert_equal jid, job["jid"]
    assert_equal "Deckhand::UnknownJobClass", job["error_class"]
    assert_includes job["error_message"], "E2E::NoSuchJob"
    assert_equal 0, job["retry_count"]
    assert cli.alive?
  end
end
