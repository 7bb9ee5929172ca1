# frozen_string_literal: true

# What jobs with a priority cost Redis per job (docs/priority.md) against a
# plain queue, without a server around them: N jobs pushed in bulk, then
# drained by fetch.lua calls of `limit` jobs each (each call acknowledging
# the lots of the one before), asking the sources a server would ask: the
# queue's own list, and its levels' lists when it has levels. On a private
# redis-server. Prints per round and as medians the Redis CPU per job (INFO
# cpu, main thread) of the push and of the fetch, and the fetch script's own
# time per job (evalsha in INFO commandstats); and the least fetch CPU of
# any round, which a busy machine disturbs least.
#
#   ruby bench/priority_cost.rb                  # 5 rounds, 20,000 jobs, 10 a fetch
#   ruby bench/priority_cost.rb 3 10000 100      # rounds, jobs, jobs a fetch
$stdout.sync = true
ENV["BUNDLE_GEMFILE"] ||= File.expand_path("../Gemfile", __dir__)
require "bundler/setup"
require_relative "../lib/deckhand"
require_relative "../lib/deckhand/server"
require_relative "lib/deckhand_bench/lab"

ROUNDS = Integer(ARGV[0] || 5)
JOBS = Integer(ARGV[1] || 20_000)
LIMIT = Integer(ARGV[2] || 10)

# Each kind: the priority of each 1,000 jobs pushed, in turn (nil: none).
KINDS = {
  "plain queue (no priority)" => [nil],
  "every job at one level (-1)" => [-1],
  "three levels (-5, none, 5)" => [-5, nil, 5]
}.freeze

def cpu(redis)
  info = redis.call("INFO", "cpu")
  %w[sys user].sum { |kind| info[/used_cpu_#{kind}_main_thread:([\d.]+)/, 1].to_f }
end

# The sources a server asks (Server::Fetch::Sources): levels below 0, the
# queue's own list, levels above 0; each with a new lot id.
def sources(levels, ids)
  (levels.select(&:negative?) + [nil] + levels.select(&:positive?)).map do |level|
    level ? [0, ids.next, nil, level] : [0, ids.next]
  end
end

def drain(url, redis, pushed)
  config = Deckhand::Config.new(redis: {url: url}, queues: ["bench"])
  config.logger = Logger.new(File::NULL)
  redis.call("FLUSHALL")
  client = Deckhand::Client.new(config: config)
  before = cpu(redis)
  (0...JOBS).each_slice(1000).with_index do |slice, n|
    level = pushed[n % pushed.size]
    client.push_bulk("class" => "BenchJob", "queue" => "bench", "args" => slice.map { |i| [i, "x" * 100] }, **(level ? {"priority" => level} : {}))
  end
  push = (cpu(redis) - before) * 1e6 / JOBS
  levels = pushed.compact.uniq
  fetch = Deckhand::Store::Scripts::Fetch.new(config.store, identity: "bench:1:fetch", queues: ["bench"])
  ids = (1..).each
  redis.call("CONFIG", "RESETSTAT")
  before = cpu(redis)
  taken = 0
  acks = []
  loop do
    asked = sources(levels, ids)
    takes = fetch.call(limit: LIMIT, sources: asked, acks: acks)
    break if takes.empty?
    acks = takes.map { |take| [0, asked[take.source][1], "", []] }
    taken += takes.sum { |take| take.payloads.size }
  end
  raise "took #{taken} of #{JOBS} jobs" unless taken == JOBS
  script = redis.call("INFO", "commandstats")[/cmdstat_evalsha:calls=\d+,usec=(\d+)/, 1].to_f
  [push, (cpu(redis) - before) * 1e6 / taken, script / taken]
ensure
  config&.store&.shutdown
end

median = ->(list) { list.sort[list.size / 2] }
load = -> { File.read("/proc/loadavg").split.first(3).join(" ") }
DeckhandBench::Lab.open(yjit: false) do |lab|
  puts "Priority cost: Ruby #{RUBY_VERSION}, #{lab.server_version}, #{JOBS} jobs, #{LIMIT} a fetch, #{ROUNDS} rounds, load average #{load.call}"
  results = KINDS.transform_values { [] }
  ROUNDS.times do
    KINDS.each { |kind, pushed| results[kind] << drain(lab.url, lab.redis, pushed) }
  end
  plain = nil
  results.each do |kind, rows|
    push, fetch, script = (0..2).map { |i| median.call(rows.map { |row| row[i] }) }
    least = rows.map { |row| row[1] }.min # the round the busy machine disturbed least
    plain ||= [fetch, least] # the first kind is the plain queue
    puts format("  %-28s push %5.2f, fetch %5.2f µs Redis CPU/job (%+.0f %%; least %5.2f, %+.0f %%), fetch script %5.2f µs/job (rounds: %s)",
      kind + ":", push, fetch, (fetch / plain[0] - 1) * 100, least, (least / plain[1] - 1) * 100, script,
      rows.map { |p, f, _| format("%.2f/%.2f", p, f) }.join(", "))
  end
  puts "  load average at the end #{load.call}"
end
