# frozen_string_literal: true

# Push-to-start on an idle server, step by step: scenario 3 (one job at a
# time, each after the last one's report and 2 ms) on Deckhand and on
# Sidekiq, each server's wake-up path stamped (DeckhandBench::WakeTrace).
# Prints for each system the push-to-start p50 and p99 (the probe's
# reports), split where the blocking pop answers (Deckhand's idle waiter's
# BLMOVE, Sidekiq's BRPOP): push to that answer, then that answer to the
# job's start; then each system's steps from there (Sidekiq has no
# hand-over, so fewer; nor has a Deckhand job run by the processor whose own
# wait read the reply, printed apart from those an idle waiter thread handed
# over), each the µs after the step before (median and 90th percentile) with
# the objects it allocated:
#
#   ruby bench/wake_path.rb          # 2,000 jobs each
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
steps = DeckhandBench::WakeTrace::STEPS
# Sidekiq's processor pops and runs the job itself: no hand-over between.
SIDEKIQ_STEPS = %w[moved run perform started].freeze

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

p50_p90 = ->(spans) { format("p50 %5d  p90 %5d", stats.median(spans), stats.percentile(spans, 90)) }

Dir.mktmpdir("wake-path") do |dir|
  DeckhandBench::Lab.open(yjit: DeckhandBench::Runner.yjit_available?) do |lab|
    puts "load average #{File.read("/proc/loadavg").split.first(3).join(" ")}" if File.exist?("/proc/loadavg")
    [DeckhandBench::Systems::DeckhandSystem.new, DeckhandBench::Systems::SidekiqSystem.load].compact.each do |system|
      trace = File.join(dir, "#{system.name}.txt")
      lab.fresh!
      child = lab.server(system, system.server(threads: 10, queues: ["bench"]), expect: 0, extra_env: {"BENCH_WAKE_TRACE" => trace})
      begin
        totals = push_one_by_one.call(lab, system, child, warmup + jobs).drop(warmup)
      ensure
        child.stop
      end
      rows = DeckhandBench::WakeTrace.read(trace).drop(warmup).select { |row| row["moved"].between?(0, row["started"]) }
      puts format("%-8s push-to-start p50 %.3f ms, p99 %.3f ms; push -> pop answered %s µs; -> started %s µs (%d jobs through the pop)",
        system.name, stats.median(totals) / 1000.0, stats.percentile(totals, 99) / 1000.0,
        p50_p90.call(rows.map { |row| row["moved"] }), p50_p90.call(rows.map { |row| row["started"] - row["moved"] }), rows.size)
      # Deckhand's jobs run by the processor whose own wait read the reply
      # have no hand-over (no "landed" stamp); those an idle waiter thread
      # handed over have. Each group is printed with its own steps.
      groups = if system.name == "deckhand"
        direct, handed = rows.partition { |row| row["landed"].negative? }
        [[direct, SIDEKIQ_STEPS, "run by the thread that read the reply"], [handed, steps, "handed over by an idle waiter"]]
      else
        [[rows, SIDEKIQ_STEPS, nil]]
      end
      groups.each do |group, own, label|
        next if group.empty?
        puts format("  %s: %d jobs", label, group.size) if label
        own.each_cons(2) do |before, after|
          spans = group.map { |row| row[after] - row[before] }
          puts format("  %-9s -> %-9s %s µs  %d objects", before, after, p50_p90.call(spans), stats.median(group.map { |row| row["objects:#{after}"] }).round)
        end
      end
    end
  end
end
