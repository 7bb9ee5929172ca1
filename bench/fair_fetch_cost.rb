# frozen_string_literal: true

# What the reliable fetch costs Redis per job on a fair queue with one tenant
# against a plain queue (docs/fair-queues.md), without a server around it:
# N jobs pushed, then drained by fetch.lua calls of `limit` jobs each (each
# call acknowledging the lot before), on a private redis-server. Prints per
# round and as medians the Redis CPU per job (INFO cpu, main thread) and the
# scripts' own time per job (evalsha in INFO commandstats), which a busy
# machine disturbs less than a rate.
#
#   ruby bench/fair_fetch_cost.rb                  # 5 rounds, 20,000 jobs, 10 a fetch
#   ruby bench/fair_fetch_cost.rb 3 10000 25       # rounds, jobs, jobs a fetch
$stdout.sync = true
ENV["BUNDLE_GEMFILE"] ||= File.expand_path("../Gemfile", __dir__)
require "bundler/setup"
require_relative "../lib/deckhand"
require_relative "../lib/deckhand/server"
require_relative "lib/deckhand_bench/lab"

ROUNDS = Integer(ARGV[0] || 5)
JOBS = Integer(ARGV[1] || 20_000)
LIMIT = Integer(ARGV[2] || 10)

def cpu(redis)
  info = redis.call("INFO", "cpu")
  %w[sys user].sum { |kind| info[/used_cpu_#{kind}_main_thread:([\d.]+)/, 1].to_f }
end

def drain(url, redis, fair)
  config = Deckhand::Config.new(redis: {url: url}, queues: ["bench"], fair_queues: fair ? {"bench" => {}} : {})
  config.logger = Logger.new(File::NULL)
  redis.call("FLUSHALL")
  client = Deckhand::Client.new(config: config)
  (0...JOBS).each_slice(1000) do |slice|
    client.push_bulk("class" => "BenchJob", "queue" => "bench", "args" => slice.map { |i| [i, "x" * 100] }, **(fair ? {"tenant" => "acme"} : {}))
  end
  fetch = Deckhand::Store::Scripts::Fetch.new(config.store, identity: "bench:1:fetch", queues: ["bench"])
  redis.call("CONFIG", "RESETSTAT")
  before = cpu(redis)
  taken = 0
  (1..).each do |id|
    takes = fetch.call(limit: LIMIT, sources: [[0, id]], acks: (id > 1) ? [[0, id - 1, "", []]] : [])
    break if takes.empty?
    taken += takes.sum { |take| take.payloads.size }
  end
  script = redis.call("INFO", "commandstats")[/cmdstat_evalsha:calls=\d+,usec=(\d+)/, 1].to_f
  [(cpu(redis) - before) * 1e6 / taken, script / taken]
ensure
  config&.store&.shutdown
end

median = ->(list) { list.sort[list.size / 2] }
load = -> { File.read("/proc/loadavg").split.first(3).join(" ") }
DeckhandBench::Lab.open(yjit: false) do |lab|
  puts "Fair fetch cost: Ruby #{RUBY_VERSION}, #{lab.server_version}, #{JOBS} jobs, #{LIMIT} a fetch, #{ROUNDS} rounds, load average #{load.call}"
  results = {"plain" => [], "fair" => []}
  ROUNDS.times do
    results.each_key { |kind| results[kind] << drain(lab.url, lab.redis, kind == "fair") }
  end
  results.each do |kind, rows|
    puts format("  %-24s Redis %5.2f µs CPU/job, scripts %5.2f µs/job (rounds: %s)", (kind == "fair") ? "fair queue, one tenant:" : "plain queue:",
      median.call(rows.map(&:first)), median.call(rows.map(&:last)), rows.map { |c, s| format("%.2f/%.2f", c, s) }.join(", "))
  end
  puts "  load average at the end #{load.call}"
end
