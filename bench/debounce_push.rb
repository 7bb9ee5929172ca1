# frozen_string_literal: true

# What a debounced push costs next to a plain one: N pushes each of a plain
# perform_async, a plain perform_in (a debounced job is a scheduled one), a
# debounce whose every push has a key of its own (each one writes a job and
# a record), and a debounce of one key (each push replaces the last), against
# a fresh private redis-server. Prints per push the wall µs, the Redis
# commands (INFO commandstats, which counts the commands a script runs) and
# Redis CPU µs, and what waits at the end.
#
#   ruby bench/debounce_push.rb [N]      # default 20,000
$stdout.sync = true
ENV["BUNDLE_GEMFILE"] ||= File.expand_path("../Gemfile", __dir__)
require "bundler/setup"
require "tmpdir"
require "etc"
require_relative "../lib/deckhand"
require_relative "../lib/deckhand/dev_redis"
require_relative "lib/deckhand_bench/redis_meter"

class BenchDebounceJob
  include Deckhand::Job

  def perform(*) = nil
end

count = Integer(ARGV[0] || 20_000)
dir = Dir.mktmpdir("deckhand-bench-debounce")
server = Deckhand::DevRedis.start(dir: File.join(dir, "redis"), persistent: false)
redis = RedisClient.new(url: server.url, timeout: 30)
meter = DeckhandBench::RedisMeter.new(redis)
version = server.server_version
now = -> { Process.clock_gettime(Process::CLOCK_MONOTONIC) }
kinds = {
  "plain perform_async" => ->(i) { BenchDebounceJob.perform_async("doc-#{i}", i) },
  "plain perform_in(5)" => ->(i) { BenchDebounceJob.perform_in(5, "doc-#{i}", i) },
  "debounce, a key per push" => ->(i) { BenchDebounceJob.set(debounce: {key: "doc-#{i}", wait: 5}).perform_async("doc-#{i}", i) },
  "debounce, one key (each push replaces)" => ->(i) { BenchDebounceJob.set(debounce: {key: "doc", wait: 5}).perform_async("doc", i) }
}
rows = []

begin
  kinds.each do |name, push|
    redis.call("FLUSHALL")
    redis.call("SCRIPT", "FLUSH")
    config = Deckhand::Config.new(redis: {url: server.url})
    config.logger = Logger.new(File::NULL)
    Deckhand.config = config
    push.call(-1) # loads the script, opens the connection
    redis.call("FLUSHALL")
    meter.start
    started = now.call
    count.times { |i| push.call(i) }
    wall = now.call - started
    stats = meter.finish(jobs: count)
    waiting = redis.call("LLEN", "queue:default") + redis.call("ZCARD", "schedule")
    rows << [name, wall * 1e6 / count, stats.commands_per_job, stats.cpu_us_per_job, waiting, stats.top(4)]
  end
ensure
  redis.close
  server.stop
  FileUtils.rm_rf(dir)
end

ruby = "#{RUBY_VERSION}#{" +YJIT" if defined?(RubyVM::YJIT) && RubyVM::YJIT.enabled?}"
load = File.exist?("/proc/loadavg") ? File.read("/proc/loadavg").split.first : "?"
puts "Debounced pushes: #{count} pushes each, one pushing thread; Ruby #{ruby}, #{version}, " \
  "#{Etc.nprocessors} cores, load #{load}"
puts
puts "| push | wall µs/push | Redis cmds/push | Redis µs/push | jobs waiting |"
puts "|---|---:|---:|---:|---:|"
rows.each { |name, wall, cmds, us, waiting, _| puts format("| %s | %.1f | %.2f | %.2f | %d |", name, wall, cmds, us, waiting) }
puts
rows.each { |name, *, top| puts "#{name}: #{top.map { |c, n, us| format("%s %.2f (%.2f µs)", c, n, us) }.join(", ")}" }
