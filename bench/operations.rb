# frozen_string_literal: true

# What the operations features cost: no-op jobs drained by one in-process
# server (10 threads) with nothing configured, then with metrics_port and
# statsd (to a local UDP socket nobody reads), alternating, median of the
# rounds; and the time to render a process's /metrics with 500 series and
# the fleet's with 200 queues.
#
#   ruby bench/operations.rb [--jobs N] [--rounds N]
$stdout.sync = true
ENV["BUNDLE_GEMFILE"] ||= File.expand_path("../Gemfile", __dir__)
require "bundler/setup"
$LOAD_PATH.unshift(File.expand_path("../lib", __dir__))
require "deckhand"
require "deckhand/server"
require "deckhand/dev_redis"
require "deckhand/operations"
require "deckhand/operations/fleet"
require "socket"
require "tmpdir"
require "logger"

class NoopJob
  include Deckhand::Job

  def perform(_) = nil
end

jobs = Integer(ARGV[ARGV.index("--jobs") + 1]) rescue 20_000 # rubocop:disable Style/RescueModifier
rounds = Integer(ARGV[ARGV.index("--rounds") + 1]) rescue 3 # rubocop:disable Style/RescueModifier
dir = Dir.mktmpdir("deckhand-bench-ops")
redis = Deckhand::DevRedis.start(dir: dir, persistent: false)
agent = UDPSocket.new
agent.bind("127.0.0.1", 0)
now = -> { Process.clock_gettime(Process::CLOCK_MONOTONIC) }
at_exit do
  redis.stop
  FileUtils.rm_rf(dir)
end

drain = lambda do |settings|
  config = Deckhand::Config.new(redis: {url: redis.url}, concurrency: 10, **settings)
  config.logger = Logger.new(File::NULL)
  config.store.call("FLUSHALL")
  Deckhand::Client.new(config: config).push_bulk("class" => "NoopJob", "args" => Array.new(jobs) { |i| [i] })
  launcher = Deckhand::Server::Launcher.new(config.freeze!)
  started = now.call
  launcher.start
  sleep 0.01 until config.store.call("LLEN", "queue:default").zero? && launcher.stats.busy.zero?
  elapsed = now.call - started
  launcher.stop
  jobs / elapsed
end

variants = {"nothing configured" => {}, "metrics_port + statsd" => {metrics_port: 0, statsd: {port: agent.addr[1]}}}
results = variants.keys.to_h { |name| [name, []] }
rounds.times { variants.each { |name, settings| results[name] << drain.call(settings) } }
median = ->(list) { list.sort[list.size / 2] }
puts "#{jobs} no-op jobs, 10 threads, #{rounds} rounds (median jobs/s; machine load #{File.read("/proc/loadavg").split.first(3).join(" ")})"
results.each { |name, list| puts format("  %-24s %8.0f jobs/s  (%s)", name, median.call(list), list.map(&:round).join(", ")) }

registry = Deckhand::Operations::Registry.new
500.times { |i| registry.job("Class#{i}", "queue#{i % 20}", 0.01 * i, i.odd?) }
started = now.call
100.times { registry.write(Deckhand::Operations::Exposition.new) }
puts format("process /metrics, 500 class/queue series: %.2f ms a render", (now.call - started) * 10)

config = Deckhand::Config.new(redis: {url: redis.url})
config.store.call("FLUSHALL")
client = Deckhand::Client.new(config: config)
200.times { |i| client.push("class" => "NoopJob", "args" => [i], "queue" => "q#{i}") }
fleet = Deckhand::Operations::Fleet.new(config)
started = now.call
20.times { fleet.write(Deckhand::Operations::Exposition.new) }
puts format("fleet /metrics, 200 queues: %.2f ms a scrape", (now.call - started) * 50)
