# frozen_string_literal: true

require "test_helper"
require "tmpdir"
require_relative "../../bench/lib/deckhand_bench/command"
require_relative "../../bench/lib/deckhand_bench/wake_trace"

# bench/wake_path.rb's stamps, taken in a real server child: every step of
# the wake-up path is stamped, in order, so a part renamed or moved shows
# here instead of as a silent gap in the figures.
class WakeTraceTest < Minitest::Test
  Bench = DeckhandBench

  def test_an_idle_deckhand_servers_wake_up_path_is_stamped_step_by_step
    rows = traced(Bench::Systems::DeckhandSystem.new)
    rows.drop(1).each do |row| # the first job may come with the server's first fetch, not through the idle waiter
      times = Bench::WakeTrace::STEPS.map { |step| row.fetch(step) }
      assert_operator times.first, :>, 0, "each step is stamped after the push: #{row}"
      assert_equal times.sort, times, "the steps come in order: #{row}"
      assert_operator row.fetch("objects:perform"), :>=, 0
    end
  end

  def test_a_sidekiq_servers_pop_and_start_are_stamped
    rows = traced(Bench::Systems::SidekiqSystem.load)
    rows.each do |row|
      times = %w[moved run perform started].map { |step| row.fetch(step) }
      assert_operator times.first, :>, 0, "each step is stamped after the push: #{row}"
      assert_equal times.sort, times, "the steps come in order: #{row}"
      assert_equal [-1, -1, -1], %w[landed buffered taken].map { |step| row.fetch(step) }, "Deckhand's steps alone are not Sidekiq's"
      # Counted from the pop, not from a step Sidekiq does not have (once
      # the process's every object since boot: hundreds of thousands).
      assert_operator row.fetch("objects:run"), :<, 5_000, "objects from the pop to the run: #{row}"
      assert_equal [0, 0, 0], %w[landed buffered taken].map { |step| row.fetch("objects:#{step}") }
    end
  end

  private

  # Three jobs pushed one at a time to an idle server of `system`: the trace's rows.
  def traced(system)
    Dir.mktmpdir("wake-trace") do |dir|
      trace = File.join(dir, "trace.txt")
      Bench::Lab.open(yjit: false) do |lab|
        child = lab.server(system, system.server(threads: 2, queues: ["bench"]), expect: 0, extra_env: {"BENCH_WAKE_TRACE" => trace})
        begin
          client = system.client(lab.url)
          3.times do |i|
            sleep 0.05 # the server waits in Redis again
            system.push(client, "BenchLatencyJob", "bench", Bench::Probe.args(i, "pushed_at" => Process.clock_gettime(Process::CLOCK_REALTIME)))
            child.wait_report(lab.redis, Bench::Probe::LATENCY, timeout: 30)
          end
        ensure
          child.stop
        end
      end
      rows = Bench::WakeTrace.read(trace)
      assert_equal 3, rows.size
      rows
    end
  end
end
