# frozen_string_literal: true

require "test_helper"
require "stringio"
require_relative "../../bench/lib/deckhand_bench/command"

# The bench's moving parts end to end, Deckhand only and small: a private
# Redis, a real server child, the probe's report and the Redis cost meter.
class BenchScenarioTest < Minitest::Test
  Bench = DeckhandBench

  # A server that exits at once, to prove a failed run is reported, not awaited.
  class CrashingSystem
    def name = "crashing"

    def server(threads:, queues:) = ["-e", "warn 'boom'; exit 3"]
  end

  def test_throughput_run_records_rate_allocations_and_redis_cost
    plan = Bench::Plan.quick.tap do |p|
      p.noop_jobs = 300
      p.thread_counts = [10]
    end
    results = Bench::Results.new
    Bench::Lab.open(yjit: false) do |lab|
      out = StringIO.new
      Bench::Scenarios::Throughput.new(lab: lab, plan: plan, results: results,
        systems: [Bench::Systems::DeckhandSystem.new], out: out).run

      assert_match(/deckhand, 10 threads: 299 jobs in/, out.string)
      assert_equal 0, lab.redis.call("LLEN", "queue:bench")
    end

    assert_operator results.median(:noop_10), :>, 0
    assert_operator results.median(:allocated), :>, 0
    assert_operator results.median(:rss), :>, 1
    assert_operator results.median(:commands), :>, 0
    assert_operator results.median(:round_trips), :>, 0
    assert_empty results.samples(:noop_10, "sidekiq")
  end

  def test_a_server_that_exits_fails_the_scenario_with_its_output
    Bench::Lab.open(yjit: false) do |lab|
      child = lab.server(CrashingSystem.new, CrashingSystem.new.server(threads: 1, queues: []), expect: 1)
      error = assert_raises(Bench::Failure) { child.wait_report(lab.redis, Bench::Probe::FINISHED, timeout: 30) }

      assert_match(/exited/, error.message)
      assert_match(/boom/, error.message)
    end
  end

  def test_bench_run_refuses_an_unknown_scenario
    err = StringIO.new
    status = Bench::Command.run(["warp-speed"], out: StringIO.new, err: err)

    assert_equal 1, status
    assert_match(/unknown scenario "warp-speed"; known: throughput, latency, push, enqueue, mixed/, err.string)
  end

  def test_scenario_numbers_and_aliases_resolve_in_suite_order
    assert_equal %w[throughput mixed], Bench::Runner.resolve(%w[7 4 1])
    assert_equal Bench::Runner::SCENARIOS.keys, Bench::Runner.resolve([])
  end
end
