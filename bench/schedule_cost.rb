# frozen_string_literal: true

# What the scheduler costs to move due jobs to their queues
# (Server::Chores::Scheduler#enqueue_due), without client middleware (one
# script per set and poll) and with one that only yields (each due job
# decoded and run through the chain in Ruby, then written by
# schedule_given.lua): N due entries filed in the schedule set, then polls
# until none is left. On a private redis-server. Prints per kind the median
# wall time per round, the Redis CPU per job (INFO cpu, main thread) and the
# commands Redis ran (INFO commandstats, the last round).
#
#   ruby bench/schedule_cost.rb               # 5 rounds, 20,000 due jobs
#   ruby bench/schedule_cost.rb 3 10000       # rounds, jobs
$stdout.sync = true
ENV["BUNDLE_GEMFILE"] ||= File.expand_path("../Gemfile", __dir__)
require "bundler/setup"
require "json"
require_relative "../lib/deckhand"
require_relative "../lib/deckhand/server"
require_relative "lib/deckhand_bench/lab"

ROUNDS = Integer(ARGV[0] || 5)
JOBS = Integer(ARGV[1] || 20_000)

# Passes every job on unchanged.
class PassThrough
  def call(*) = yield
end

KINDS = {"no client middleware" => nil, "a middleware that yields" => PassThrough}.freeze

def cpu(redis)
  info = redis.call("INFO", "cpu")
  %w[sys user].sum { |kind| info[/used_cpu_#{kind}_main_thread:([\d.]+)/, 1].to_f }
end

def round(url, redis, middleware)
  config = Deckhand::Config.new(redis: {url: url})
  config.logger = Logger.new(File::NULL)
  config.client_middleware.add(middleware) if middleware
  redis.call("FLUSHALL")
  due = (Time.now.to_f - 10).to_s
  (0...JOBS).each_slice(1000) do |slice|
    redis.call("ZADD", "schedule", *slice.flat_map { |i| [due, JSON.generate("class" => "BenchJob", "queue" => "bench", "jid" => format("%024x", i), "args" => [i])] })
  end
  scheduler = Deckhand::Server::Chores::Scheduler.new(config: config, store: config.store, process_count: -> { 1 })
  redis.call("CONFIG", "RESETSTAT")
  before = cpu(redis)
  started = Process.clock_gettime(Process::CLOCK_MONOTONIC)
  moved = 0
  loop do
    count, = scheduler.enqueue_due
    break if count.zero?
    moved += count
  end
  wall = Process.clock_gettime(Process::CLOCK_MONOTONIC) - started
  raise "moved #{moved} of #{JOBS}" unless moved == JOBS && redis.call("LLEN", "queue:bench") == JOBS
  commands = redis.call("INFO", "commandstats").scan(/cmdstat_(\w+):calls=(\d+)/).map { |name, calls| "#{name} #{calls}" }
  [wall * 1000, (cpu(redis) - before) * 1e6 / JOBS, commands.join(", ")]
ensure
  config&.store&.shutdown
end

median = ->(list) { list.sort[list.size / 2] }
load = -> { File.read("/proc/loadavg").split.first(3).join(" ") }
DeckhandBench::Lab.open(yjit: false) do |lab|
  puts "Schedule cost: Ruby #{RUBY_VERSION}, #{lab.server_version}, #{JOBS} due jobs, #{ROUNDS} rounds, load average #{load.call}"
  KINDS.each do |kind, middleware|
    rows = Array.new(ROUNDS) { round(lab.url, lab.redis, middleware) }
    puts format("  %-26s %6.0f ms a round (%s), %5.2f µs Redis CPU/job; commands: %s", kind + ":",
      median.call(rows.map(&:first)), rows.map { |row| row[0].round }.join(", "), median.call(rows.map { |row| row[1] }), rows.last[2])
  end
  puts "  load average at the end #{load.call}"
end
