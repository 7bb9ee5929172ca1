# frozen_string_literal: true

# Push-to-start on an idle server, step by step: scenario 3 (one job at a
# time, each after the last one's report and 2 ms) with the Deckhand server's
# wake-up path stamped (DeckhandBench::WakeTrace), then the same pushes to a
# Sidekiq server for its total. Prints, for each step, the µs it took after
# the step before (median and 90th percentile) and the objects it allocated,
# then both systems' push-to-start p50 and p99:
#
#   ruby bench/wake_path.rb          # 2,000 jobs
#   ruby bench/wake_path.rb 500      # fewer
$stdout.sync = true
ENV["BUNDLE_GEMFILE"] ||= File.expand_path("../Gemfile", __dir__)
require "bundler/setup"
require "tmpdir"
require_relative "lib/deckhand_bench/runner"
require_relative "lib/deckhand_bench/wake_trace"

jobs = Integer(ARGV[0] || 2_000)
warmup = 20
stats = DeckhandBench::Stats

# Pushes `count` jobs one at a time; returns each push-to-start in µs.
push_one_by_one = lambda do |lab, system, child, count|
  client = system.client(lab.url)
  Array.new(count) do |i|
    sleep 0.002
    args = DeckhandBench::Probe.args(i, "pushed_at" => Process.clock_gettime(Process::CLOCK_REALTIME))
    system.push(client, "BenchLatencyJob", "bench", args)
    child.wait_report(lab.redis, DeckhandBench::Probe::LATENCY, timeout: i.zero? ? 60 : 10).to_i
  end
end

totals = {}
Dir.mktmpdir("wake-path") do |dir|
  trace = File.join(dir, "trace.txt")
  DeckhandBench::Lab.open(yjit: DeckhandBench::Runner.yjit_available?) do |lab|
    puts "load average #{File.read("/proc/loadavg").split.first(3).join(" ")}" if File.exist?("/proc/loadavg")
    [DeckhandBench::Systems::DeckhandSystem.new, DeckhandBench::Systems::SidekiqSystem.load].compact.each do |system|
      lab.fresh!
      env = (system.name == "deckhand") ? {"BENCH_WAKE_TRACE" => trace} : {}
      child = lab.server(system, system.server(threads: 10, queues: ["bench"]), expect: 0, extra_env: env)
      begin
        totals[system.name] = push_one_by_one.call(lab, system, child, warmup + jobs).drop(warmup)
      ensure
        child.stop
      end
    end
  end
  rows = DeckhandBench::WakeTrace.read(trace).drop(warmup)
  steps = ["pushed", *DeckhandBench::WakeTrace::STEPS]
  puts "Deckhand's wake-up path, #{rows.size} jobs (µs after the step before; objects allocated in the step):"
  steps.each_cons(2) do |before, after|
    spans = rows.map { |row| row[after] - (row[before] || 0) }
    objects = (before == "pushed") ? "" : "  #{stats.median(rows.map { |row| row["objects:#{after}"] }).round} objects"
    puts format("  %-9s -> %-9s p50 %5d  p90 %5d%s", before, after, stats.median(spans), stats.percentile(spans, 90), objects)
  end
end
totals.each do |name, samples|
  puts format("%-9s push-to-start p50 %.3f ms, p99 %.3f ms", name, stats.median(samples) / 1000.0, stats.percentile(samples, 99) / 1000.0)
end
