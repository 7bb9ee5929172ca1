# frozen_string_literal: true

# What a live Deckhand server costs Redis per job: scenario 1's no-op run
# (100,000 jobs pushed in bulk, then one server process) at 10 and 25
# threads, Deckhand alone, several rounds; prints per round and as medians
# the jobs/s, Redis CPU µs per job (INFO cpu, main thread) and the commands
# Redis ran per job with their time (INFO commandstats), plus the load
# average before and after, since the machine may be shared; and how long
# acknowledgements waited (the oldest news of each round trip that carried
# news: median, 99th percentile, largest; DeckhandBench::NewsAges).
#
# Redis CPU per job is counted as in `bench/run` (scenario 5): from before the
# server starts, so it includes Redis' own housekeeping while the server boots
# (a second or more, longer on a loaded machine). "after boot" counts only
# from the server's first fetch (the queue starts to shrink) to the last job,
# over the jobs fetched in that time: the cost of the work itself.
#
#   ruby bench/fetch_cost.rb                   # 5 rounds, 10 and 25 threads, 100,000 jobs
#   ruby bench/fetch_cost.rb 3 10 100000       # rounds, thread counts (comma-separated), jobs
$stdout.sync = true
ENV["BUNDLE_GEMFILE"] ||= File.expand_path("../Gemfile", __dir__)
require "bundler/setup"
Dir.chdir(File.expand_path("..", __dir__))
require "json"
require_relative "lib/deckhand_bench/runner"

rounds = Integer(ARGV[0] || 5)
thread_counts = (ARGV[1] || "10,25").split(",").map { |t| Integer(t) }
count = Integer(ARGV[2] || 100_000)
system = DeckhandBench::Systems::DeckhandSystem.new
load = -> { File.read("/proc/loadavg").split.first(3).join(" ") }
median = ->(list) { list.sort[list.size / 2] }
rows = Hash.new { |h, k| h[k] = [] }

puts "load average at start: #{load.call}"
DeckhandBench::Lab.open(yjit: DeckhandBench::Runner.yjit_available?) do |lab|
  puts "#{lab.server_version}, #{count} no-op jobs, #{rounds} rounds"
  client = system.client(lab.url)
  rounds.times do |round|
    thread_counts.each do |threads|
      lab.fresh!
      system.push_bulk(client, "BenchNoopJob", "bench", Array.new(count) { |i| DeckhandBench::Probe.args(i) })
      meter = DeckhandBench::RedisMeter.new(lab.redis).start
      started = meter.cpu_seconds
      child = lab.server(system, system.server(threads: threads, queues: ["bench"]), expect: count)
      sleep 0.1 while (left = lab.redis.call("LLEN", "queue:bench")) == count # a round trip costs Redis CPU too: seldom
      booted = meter.cpu_seconds
      report = JSON.parse(child.wait_report(lab.redis, DeckhandBench::Probe::FINISHED, timeout: 60 + count * 0.002))
      cost = meter.finish(jobs: count, extra: {"rpush" => 1})
      child.stop
      rate = report["jobs"] / report["seconds"]
      ruby_us = report["cpu_seconds"] * 1_000_000 / report["jobs"]
      after_boot = (cost.cpu_seconds - (booted - started)) * 1_000_000 / left
      rows[threads] << [rate, cost.cpu_us_per_job, cost.commands_per_job, ruby_us, after_boot, report["news_age_p50_ms"], report["news_age_p99_ms"]]
      top = cost.top(8).map { |name, calls, usec| "#{name} #{calls.round(5)}/#{usec.round(3)}" }.join(", ")
      puts format("round %d, %2d threads: %7.0f jobs/s, %.3f µs Redis CPU/job (%.3f after boot), %.2f µs server CPU/job, " \
        "%.4f commands/job, %.1f jobs/round trip, news age p50/p99/max %s/%s/%s ms; calls/µs per job: %s (load %s)", round + 1,
        threads, rate, cost.cpu_us_per_job, after_boot, ruby_us, cost.commands_per_job,
        1 / (cost.by_command.dig("evalsha", 0) || 1).fdiv(count), report["news_age_p50_ms"], report["news_age_p99_ms"],
        report["news_age_max_ms"], top, load.call)
    end
  end
end
rows.each do |threads, list|
  puts format("median, %2d threads: %7.0f jobs/s, %.3f µs Redis CPU/job (%.3f after boot), %.2f µs server CPU/job, " \
    "%.4f commands/job, news age p50 %s ms, p99 %s ms", threads, median.call(list.map(&:first)), median.call(list.map { |r| r[1] }),
    median.call(list.map { |r| r[4] }), median.call(list.map { |r| r[3] }), median.call(list.map { |r| r[2] }),
    median.call(list.map { |r| r[5].to_f }), median.call(list.map { |r| r[6].to_f }))
end
puts "load average at end: #{load.call}"
