# frozen_string_literal: true

# Limiter checks per second from one process (one thread, one check after the
# other), for each limiter type, and what each check costs Redis (CPU of its
# main thread, commands run inside the script); then the fetch script's Redis
# cost per job for an unthrottled and a throttled queue.
#
#   ruby bench/limiters.rb [CHECKS]      # 5000 checks per type by default
$stdout.sync = true
ENV["BUNDLE_GEMFILE"] ||= File.expand_path("../Gemfile", __dir__)
require "bundler/setup"
require_relative "../lib/deckhand"
require_relative "../lib/deckhand/server"
require_relative "lib/deckhand_bench/lab"
require_relative "lib/deckhand_bench/redis_meter"

CHECKS = Integer(ARGV[0] || 5000)
BIG = 1_000_000_000

def measure(lab, count)
  meter = DeckhandBench::RedisMeter.new(lab.redis).start
  started = Process.clock_gettime(Process::CLOCK_MONOTONIC)
  yield
  elapsed = Process.clock_gettime(Process::CLOCK_MONOTONIC) - started
  [count / elapsed, meter.finish(jobs: count)]
end

# Redis CPU: its main thread's, network included; in scripts: the time
# Redis spent running them (INFO commandstats).
def row(label, rate, cost, unit)
  script_us = cost.by_command.fetch("evalsha", [0, 0])[1].fdiv(cost.jobs)
  puts format("  %-34s %9.0f %s/s   %6.2f µs Redis CPU/%s (%5.2f in scripts)   %5.1f commands/%s",
    label, rate, unit, cost.cpu_us_per_job, unit, script_us, cost.commands_per_job, unit)
end

DeckhandBench::Lab.open(yjit: true) do |lab|
  store = Deckhand::Store.new({url: lab.url}, size: 2)
  puts "Deckhand limiters: #{CHECKS} checks per type, one thread; Ruby #{RUBY_VERSION}, #{lab.server_version}, " \
    "load average #{File.read("/proc/loadavg").split.first(3).join(" ")}"
  limiters = {
    "concurrent (take + release)" => Deckhand::Limiter.concurrent("bench", BIG, store: store),
    "bucket" => Deckhand::Limiter.bucket("bench", BIG, :minute, store: store),
    "window" => Deckhand::Limiter.window("bench", BIG, :minute, store: store),
    "leaky" => Deckhand::Limiter.leaky("bench", BIG, :minute, store: store),
    "points" => Deckhand::Limiter.points("bench", BIG, refill: BIG, per: :minute, store: store)
  }
  limiters.each do |label, limiter|
    lab.fresh!
    limiter.within_limit { nil } # loads the script
    rate, cost = measure(lab, CHECKS) { CHECKS.times { limiter.within_limit { nil } } }
    row(label, rate, cost, "check")
  end

  puts "fetch.lua, 100 jobs per call, no acknowledgements:"
  fetch = Deckhand::Store::Scripts::Fetch.new(store, identity: "bench:1:x", queues: ["q"])
  payload = JSON.generate("class" => "NoopJob", "args" => [], "jid" => "0" * 24, "queue" => "q")
  limit = Deckhand::Config::Throttle.limit!("q", {rate: BIG, concurrency: BIG})
  {"unthrottled queue" => nil, "throttled queue (rate + concurrency)" => [[0, limit, 0]]}.each do |label, throttles|
    lab.fresh!
    jobs = 20_000
    (jobs / 1000).times { lab.redis.call("LPUSH", "queue:q", *Array.new(1000, payload)) }
    id = 0
    rate, cost = measure(lab, jobs) do
      (jobs / 100).times { fetch.call(limit: 100, sources: [[0, id += 1]], acks: [], throttles: throttles) }
    end
    row(label, rate, cost, "job")
  end
end
