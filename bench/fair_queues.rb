# frozen_string_literal: true

# Fair queues (docs/fair-queues.md), against a private redis-server:
#
# 1. Starvation: tenant A pushes 10,000 jobs; once its backlog is under way
#    tenant B pushes 10 (jobs of 1 ms). Counts the jobs of A that started after B's push
#    and before B's last job started (how long B waited, in A's jobs), and
#    those between B's first and last start, on a fair queue and on a plain
#    one (first in, first out).
# 2. Throughput: 20,000 no-op jobs (then 5,000 jobs of 1 ms) pushed ahead,
#    then drained by one server, on a fair queue with one tenant and on a
#    plain queue, with the CPU each job cost (the server's process and
#    Redis together: steadier than the rate on a busy machine).
#
#   ruby bench/fair_queues.rb [--quick] [--rounds N]
$stdout.sync = true
ENV["BUNDLE_GEMFILE"] ||= File.expand_path("../Gemfile", __dir__)
require "bundler/setup"
require_relative "../lib/deckhand"
require_relative "../lib/deckhand/server"
require_relative "lib/deckhand_bench/lab"
require_relative "lib/deckhand_bench/redis_meter"

QUICK = ARGV.include?("--quick")
ROUNDS = ARGV.include?("--rounds") ? Integer(ARGV[ARGV.index("--rounds") + 1]) : nil
BACKLOG = QUICK ? 2_000 : 10_000
DRAIN = QUICK ? 5_000 : 20_000
THREADS = 10
PAUSE = 0.001 # each starvation job sleeps 1 ms: a backlog that lasts, as real jobs make one

# Records the order jobs start in: [tenant, n].
class FairBenchJob
  include Deckhand::Job

  LOCK = Mutex.new
  STARTS = []

  def perform(tenant, n, pause = 0)
    LOCK.synchronize { STARTS << tenant }
    sleep(pause) if pause.positive?
  end
end

def monotonic = Process.clock_gettime(Process::CLOCK_MONOTONIC)

def config(url, fair)
  config = Deckhand::Config.new(redis: {url: url}, concurrency: THREADS, queues: ["bench"], timeout: 5,
    fair_queues: fair ? {"bench" => {by: ->(job) { job["args"].first }}} : {})
  config.logger = Logger.new(File::NULL)
  config
end

def serve(config)
  launcher = Deckhand::Server::Launcher.new(config.freeze!, on_signal: ->(_) {})
  launcher.start
  yield
ensure
  launcher&.stop
end

def wait_until(timeout = 300)
  deadline = monotonic + timeout
  sleep 0.001 until yield || monotonic > deadline
  raise "timed out" unless yield
end

def push(config, tenant, count, pause = 0)
  client = Deckhand::Client.new(config: config)
  client.push_bulk("class" => "FairBenchJob", "queue" => "bench", "args" => Array.new(count) { |i| [tenant, i, pause] })
end

def starvation(lab, fair)
  lab.fresh!
  FairBenchJob::LOCK.synchronize { FairBenchJob::STARTS.clear }
  cfg = config(lab.url, fair)
  pushed_at = nil
  serve(cfg) do
    push(cfg, "a", BACKLOG, PAUSE)
    wait_until { FairBenchJob::LOCK.synchronize { FairBenchJob::STARTS.size } >= 100 }
    pushed_at = FairBenchJob::LOCK.synchronize { FairBenchJob::STARTS.size }
    push(cfg, "b", 10, PAUSE)
    wait_until { FairBenchJob::LOCK.synchronize { FairBenchJob::STARTS.size } >= BACKLOG + 10 }
  end
  starts = FairBenchJob::LOCK.synchronize { FairBenchJob::STARTS.dup }
  first_b = starts.index("b")
  last_b = starts.rindex("b")
  [starts[pushed_at...last_b].count("a"), starts[first_b..last_b].count("a")]
end

def drain(lab, fair, count, pause)
  lab.fresh!
  cfg = config(lab.url, fair)
  FairBenchJob::LOCK.synchronize { FairBenchJob::STARTS.clear }
  push(cfg, "solo", count, pause)
  started = nil
  meter = DeckhandBench::RedisMeter.new(lab.redis).start
  cpu = Process.clock_gettime(Process::CLOCK_PROCESS_CPUTIME_ID)
  serve(cfg) do
    started = monotonic
    wait_until { FairBenchJob::LOCK.synchronize { FairBenchJob::STARTS.size } >= count }
  end
  rate = count / (monotonic - started)
  ruby_us = (Process.clock_gettime(Process::CLOCK_PROCESS_CPUTIME_ID) - cpu) * 1e6 / count
  [rate, meter.finish(jobs: count).cpu_us_per_job + ruby_us]
end

def median(list) = list.sort[list.size / 2]

DeckhandBench::Lab.open(yjit: true) do |lab|
  rounds = ROUNDS || (QUICK ? 1 : 3)
  puts "Deckhand fair queues: Ruby #{RUBY_VERSION}#{" +YJIT" if defined?(RubyVM::YJIT) && RubyVM::YJIT.enabled?}, " \
    "#{lab.server_version}, #{THREADS} threads, #{rounds} round(s), load average #{File.read("/proc/loadavg").split.first(3).join(" ")}"
  puts "Starvation: A pushes #{BACKLOG} jobs, then (100 of them started) B pushes 10"
  {"fair queue (by: tenant)" => true, "plain queue (FIFO)" => false}.each do |label, fair|
    samples = Array.new(rounds) { starvation(lab, fair) }
    waited = median(samples.map(&:first))
    between = median(samples.map(&:last))
    puts format("  %-26s A's jobs started after B's push, before B's last start: %6d   between B's first and last start: %6d",
      label, waited, between)
  end
  [[DRAIN, 0, "no-op jobs"], [DRAIN / 4, PAUSE, "jobs of 1 ms"]].each do |count, pause, what|
    puts "Throughput: #{count} #{what} pushed ahead, one server"
    rates = {}
    cpu = {}
    rounds.times do
      {"plain" => false, "fair" => true}.each do |label, fair|
        rate, us = drain(lab, fair, count, pause)
        (rates[label] ||= []) << rate
        (cpu[label] ||= []) << us
      end
    end
    plain = median(rates["plain"])
    fair = median(rates["fair"])
    puts format("  plain queue:             %8.0f jobs/s, %5.2f µs CPU/job (rounds: %s)", plain, median(cpu["plain"]), rates["plain"].map(&:round).join(", "))
    puts format("  fair queue, one tenant:  %8.0f jobs/s, %5.2f µs CPU/job (rounds: %s)  %+.1f %%", fair, median(cpu["fair"]),
      rates["fair"].map(&:round).join(", "), 100.0 * (fair - plain) / plain)
  end
end
