# frozen_string_literal: true

# What cancelling costs (docs/cancelling.md), on a private redis-server:
#
#   - the heartbeat: one beat's round trip (Store::Records::Heartbeats.beat)
#     while the process runs 0, 10 or 50 jobs, whose cancel marks it reads
#     with one MGET; wall time per beat and Redis' time in the MGET;
#   - a cancel (Client::JobCancel): of the oldest job of a queue of N jobs
#     (the last page its search reads), of an entry of a retry set of N, and
#     of a jid found nowhere (every queue and set read): wall time and the
#     commands Redis ran.
#
#   ruby bench/cancel_cost.rb                 # 2,000 beats, queues and sets of 10,000 and 100,000
#   ruby bench/cancel_cost.rb 500 10000       # beats, sizes
$stdout.sync = true
ENV["BUNDLE_GEMFILE"] ||= File.expand_path("../Gemfile", __dir__)
require "bundler/setup"
require "json"
require_relative "../lib/deckhand"
require_relative "../lib/deckhand/server"
require_relative "lib/deckhand_bench/lab"
require_relative "lib/deckhand_bench/redis_meter"

beats = Integer(ARGV[0] || 2_000)
sizes = (ARGV[1] || "10000,100000").split(",").map { |n| Integer(n) }
median = ->(list) { list.sort[list.size / 2] }
job = ->(i) { JSON.generate("class" => "BenchNoopJob", "args" => [i], "queue" => "bench", "jid" => format("%024x", i), "retry" => true) }
ms = ->(seconds) { format("%.2f ms", seconds * 1000) }

puts "load average at start: #{File.read("/proc/loadavg").split.first(3).join(" ")}"
DeckhandBench::Lab.open(yjit: false) do |lab|
  config = Deckhand::Config.new(redis: {url: lab.url})
  store = config.store
  redis = lab.redis
  meter = DeckhandBench::RedisMeter.new(redis)
  puts "#{lab.server_version}, Ruby #{RUBY_VERSION}"

  puts "\nHeartbeat, #{beats} beats each (median wall time of a beat; Redis' time in the MGET per beat)"
  record = {info: "{}", concurrency: 50, clock: 0.0, running: {}, inflight: 0, rtt_us: 0, quiet: false, rss_kb: 0, ttl: 40}
  [0, 10, 50].each do |running|
    jids = Array.new(running) { |i| format("%024x", i) }
    Deckhand::Store::Jobs::Cancellations.mark(store, jids.first, grace: nil, at: 0) unless jids.empty?
    meter.start
    times = Array.new(beats) do
      started = Deckhand::Monotonic.now
      Deckhand::Store::Records::Heartbeats.beat(store, "bench:1:beat", counts: [0, 0], metrics: {}, record: record, running: jids)
      Deckhand::Monotonic.now - started
    end
    cost = meter.finish(jobs: beats)
    calls, usec = cost.by_command["mget"] || [0, 0]
    puts format("  %2d jobs running: %s a beat, %d MGET, %.1f µs of Redis a beat in it (%.1f µs a beat in all)",
      running, ms.call(median.call(times)), calls, usec.fdiv(beats), cost.cpu_us_per_job)
  end

  puts "\nA cancel (wall time; commands Redis ran)"
  sizes.each do |size|
    lab.fresh!
    redis.call("SADD", "queues", "bench")
    (0...size).each_slice(10_000) { |slice| redis.call("RPUSH", "queue:bench", *slice.map { |i| job.call(i) }) }
    (0...size).each_slice(10_000) { |slice| redis.call("ZADD", "retry", *slice.flat_map { |i| [i, job.call(size + i)] }) }
    cancel = Deckhand::Client::JobCancel.new(config)
    [["the oldest of a queue of #{size}", format("%024x", size - 1)],
      ["the last entry of a retry set of #{size}", format("%024x", (2 * size) - 1)],
      ["a jid found nowhere (queue and retry set of #{size} read)", "f" * 24]].each do |label, jid|
      meter.start
      started = Deckhand::Monotonic.now
      outcome = cancel.call(jid)
      took = Deckhand::Monotonic.now - started
      cost = meter.finish(jobs: 1)
      puts format("  %-58s %-22s %10s, %4d commands, %.1f ms of Redis", label, outcome, ms.call(took), cost.commands, cost.cpu_seconds * 1000)
    end
  end
end
