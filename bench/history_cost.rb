# frozen_string_literal: true

# What the dashboard's history costs Redis (docs/web.md, "Queue samples"),
# on a private redis-server:
#
#   - a minute of queue sampling: 10 processes try, one samples every queue;
#     the commands Redis ran and the time it spent in them;
#   - the memory one queue's 72 hours of samples take;
#   - a queue page's read of its history (1 h, 72 h), and the dashboard's
#     throughput read (1 h, 4 h, 24 h, 72 h) over 72 hours of per-minute
#     metrics from 20 job classes.
#
#   ruby bench/history_cost.rb          # 100 queues
#   ruby bench/history_cost.rb 500      # queues
$stdout.sync = true
ENV["BUNDLE_GEMFILE"] ||= File.expand_path("../Gemfile", __dir__)
require "bundler/setup"
require "logger"
require_relative "../lib/deckhand"
require_relative "../lib/deckhand/server"
require_relative "../lib/deckhand/api"
require_relative "lib/deckhand_bench/lab"

queues = Integer(ARGV[0] || 100)
Samples = Deckhand::Store::Records::QueueSamples

DeckhandBench::Lab.open(yjit: false) do |lab|
  lab.fresh!
  config = Deckhand::Config.new(redis: {url: lab.url})
  store = config.store
  api = Deckhand::API.new(config)
  # usec Redis spent in commands since the last reset, a script's inner commands left out
  spent = lambda do
    stats = lab.redis.call("INFO", "commandstats").lines.grep(/^cmdstat_/).to_h do |line|
      name, rest = line.split(":", 2)
      [name.delete_prefix("cmdstat_"), [rest[/calls=(\d+)/, 1].to_i, rest[/usec=(\d+)/, 1].to_i]]
    end
    inner = stats.key?("evalsha") ? %w[hmget hgetall].sum { |name| stats.fetch(name, [0, 0])[1] } : 0
    stats.delete("config|resetstat")
    [stats, stats.sum { |_, (_, usec)| usec } - inner]
  end
  reset = -> { lab.redis.call("CONFIG", "RESETSTAT") }

  queues.times { |i| Deckhand::Client.new(config: config).push("class" => "BenchJob", "args" => [i], "queue" => "q#{i}") }
  minute = (store.clock.now / 60).floor
  (minute - 4320...minute).each { |m| Samples.write(store, m, (0...queues).map { |i| ["q#{i}", i, 1.5] }) }
  fleet = 10.times.map { |i| Deckhand::Server::Chores::QueueSampler.new(store: store, identity: "bench:#{i}", logger: Logger.new(nil)) }
  reset.call
  sampled = fleet.map { |process| process.tick((minute * 60.0) + 1) }
  stats, usec = spent.call
  puts "#{lab.server_version}, ruby #{RUBY_VERSION}, #{queues} queues, #{fleet.size} processes"
  puts "a minute's sampling: #{sampled.compact.inspect} sampled; #{stats.sum { |_, (calls, _)| calls }} commands " \
    "(#{stats.sort.map { |name, (calls, _)| "#{name} #{calls}" }.join(", ")}), Redis busy #{usec} us"
  keys = ((minute - 4320) / 60..minute / 60).map { |hour| Deckhand::Store::Layout::Untagged.queue_samples("q1", Time.at(hour * 3600)) }
  bytes = keys.sum { |key| lab.redis.call("MEMORY", "USAGE", key, "SAMPLES", "0").to_i }
  puts "one queue's 72 hours: #{keys.size} hashes, #{bytes} bytes"
  %w[1h 72h].each do |period|
    reset.call
    api.queue_history("q1", period: period)
    puts "a queue page's history, #{period}: Redis busy #{spent.call[1]} us"
  end

  tally = Deckhand::Store::Records::ExecutionMetrics::Tally.new
  (1..4320).each do |ago|
    20.times { |c| 3.times { |i| tally.record("Job#{c}", 2.0 * (i + 1), i.zero?) } }
    store.pipelined { |pipe| Deckhand::Store::Records::ExecutionMetrics.flush(pipe, tally.take, now: Time.at((minute - ago) * 60), sidekiq: []) }
  end
  %w[1h 4h 24h 72h].each do |period|
    api.throughput(period: period) # its script loaded
    reset.call
    points = api.throughput(period: period).points.size
    puts "the dashboard's throughput, #{period}: #{points} points, Redis busy #{spent.call[1]} us"
  end
end
