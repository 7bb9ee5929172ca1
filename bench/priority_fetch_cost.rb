# frozen_string_literal: true

# What a queue's priority levels (docs/priority.md) add to one fetch, with
# the round trip's own cost (the socket reads and writes, about half of a
# small fetch's Redis CPU) taken out: `per` fetch.lua calls of `limit` jobs
# each, with their lots' reads, sent in one pipeline, as a server asks them
# (Server::Fetch::Sources: the levels below 0, the queue's own list, the
# levels above 0), from a queue with no level, then from one with levels -5
# and 5 whose jobs wait in its own list, at -5 and at 5. Prints the least
# Redis CPU per fetch (INFO cpu, main thread) of the rounds, which a busy
# machine disturbs least, and the Redis commands per fetch (INFO
# commandstats: the script's own calls, the script, the reads).
#
#   ruby bench/priority_fetch_cost.rb              # 15 rounds of 300 fetches, 10 jobs a fetch
#   ruby bench/priority_fetch_cost.rb 15 300 100   # rounds, fetches a round, jobs a fetch
$stdout.sync = true
ENV["BUNDLE_GEMFILE"] ||= File.expand_path("../Gemfile", __dir__)
require "bundler/setup"
require_relative "../lib/deckhand"
require_relative "../lib/deckhand/server"
require_relative "lib/deckhand_bench/lab"

ROUNDS = Integer(ARGV[0] || 15)
PER = Integer(ARGV[1] || 300)
LIMIT = Integer(ARGV[2] || 10)

# Each case: the queue's levels, and the level its jobs wait at (nil: its own list).
CASES = {
  "plain queue (no level)" => [[], nil],
  "levels -5, 5; jobs in its list" => [[-5, 5], nil],
  "levels -5, 5; jobs at -5" => [[-5, 5], -5],
  "levels -5, 5; jobs at 5" => [[-5, 5], 5]
}.freeze

def cpu(redis)
  info = redis.call("INFO", "cpu")
  %w[sys user].sum { |kind| info[/used_cpu_#{kind}_main_thread:([\d.]+)/, 1].to_f }
end

def commands(redis)
  redis.call("INFO", "commandstats").scan(/cmdstat_(\w+):calls=(\d+)/).sum { |name, calls| %w[info config].include?(name) ? 0 : calls.to_i }
end

# One round: the queue filled for `PER` fetches, then the fetches in one
# pipeline. Returns [Redis CPU µs, commands] per fetch.
def round(lab, config, levels, at, ids)
  redis = lab.redis
  redis.call("FLUSHALL")
  Deckhand::Client.new(config: config).push_bulk("class" => "BenchJob", "queue" => "bench",
    "args" => Array.new(PER * LIMIT) { |i| [i, "x" * 100] }, **(at ? {"priority" => at} : {}))
  levels.each { |level| redis.call("SADD", config.store.layout.priorities("bench"), level.to_s) } # as a push at each level names it
  fetch = Deckhand::Store::Scripts::Fetch.new(config.store, identity: "bench:1:fetch", queues: ["bench"])
  calls = Array.new(PER) do
    sources = (levels.select(&:negative?) + [nil] + levels.select(&:positive?)).map { |level| level ? [0, ids.next, nil, level] : [0, ids.next] }
    fetch.command(limit: LIMIT, sources: sources, acks: [])
  end
  redis.call("SCRIPT", "LOAD", Deckhand::Store::Scripts::Fetch.source)
  redis.call("CONFIG", "RESETSTAT")
  before = cpu(redis)
  replies = redis.pipelined do |pipe|
    calls.each do |keys, argv, reads|
      pipe.call("EVALSHA", Deckhand::Store::Scripts::Fetch.sha, keys.size, *keys, *argv)
      reads.each { |read| pipe.call(*read) }
    end
  end
  spent = (cpu(redis) - before) * 1e6 / PER
  taken = replies.sum { |reply| (reply.is_a?(Array) && reply.first.is_a?(String)) ? reply.size : 0 }
  raise "took #{taken} of #{PER * LIMIT} jobs" unless taken == PER * LIMIT
  [spent, commands(redis).fdiv(PER)]
end

load = -> { File.read("/proc/loadavg").split.first(3).join(" ") }
DeckhandBench::Lab.open(yjit: false) do |lab|
  puts "Priority fetch cost: Ruby #{RUBY_VERSION}, #{lab.server_version}, #{PER} fetches of #{LIMIT} jobs a round, #{ROUNDS} rounds, load average #{load.call}"
  config = Deckhand::Config.new(redis: {url: lab.url}, queues: ["bench"])
  config.logger = Logger.new(File::NULL)
  ids = (1..).each
  results = CASES.transform_values { [] }
  ROUNDS.times { CASES.each { |name, (levels, at)| results[name] << round(lab, config, levels, at, ids) } }
  plain = results.values.first.map(&:first).min
  results.each do |name, rows|
    least = rows.map(&:first).min
    puts format("  %-32s %6.2f µs Redis CPU a fetch (least of %d; %+.2f µs, %+.0f %%), %4.1f commands a fetch",
      name + ":", least, rows.size, least - plain, (least / plain - 1) * 100, rows.last.last)
  end
  puts "  load average at the end #{load.call}"
ensure
  config&.store&.shutdown
end
