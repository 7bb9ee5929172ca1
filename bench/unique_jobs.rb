# frozen_string_literal: true

# What unique jobs cost: push and run N no-op jobs with unique_for off, then
# on, against a fresh private redis-server, and print per push and per job
# the Redis commands (INFO commandstats, which counts the commands a script
# runs), Redis CPU µs and wall µs.
#
#   ruby bench/unique_jobs.rb [N]      # default 20,000
$stdout.sync = true
ENV["BUNDLE_GEMFILE"] ||= File.expand_path("../Gemfile", __dir__)
require "bundler/setup"
require "tmpdir"
require "etc"
require_relative "../lib/deckhand"
require_relative "../lib/deckhand/server"
require_relative "../lib/deckhand/dev_redis"
require_relative "lib/deckhand_bench/redis_meter"

class BenchUniqueJob
  include Deckhand::Job

  @done = Queue.new
  class << self
    attr_reader :done
  end

  def perform(_n) = self.class.done << 1
end

count = Integer(ARGV[0] || 20_000)
dir = Dir.mktmpdir("deckhand-bench-unique")
server = Deckhand::DevRedis.start(dir: File.join(dir, "redis"), persistent: false)
redis = RedisClient.new(url: server.url, timeout: 30)
meter = DeckhandBench::RedisMeter.new(redis)
now = -> { Process.clock_gettime(Process::CLOCK_MONOTONIC) }
rows = []

begin
  [false, 600].each do |unique_for|
    redis.call("FLUSHALL")
    redis.call("SCRIPT", "FLUSH")
    config = Deckhand::Config.new(redis: {url: server.url}, concurrency: 10)
    config.logger = Logger.new(File::NULL)
    Deckhand.config = config
    setter = BenchUniqueJob.set(unique_for: unique_for)
    setter.perform_async(-1) # loads the script, opens the connection
    BenchUniqueJob.done.pop(true) rescue nil # rubocop:disable Style/RescueModifier
    meter.start
    started = now.call
    count.times { |i| setter.perform_async(i) }
    push_wall = now.call - started
    push = meter.finish(jobs: count)

    meter.start
    started = now.call
    launcher = Deckhand::Server::Launcher.new(config.freeze!, on_signal: ->(_) {})
    launcher.start
    (count + 1).times { BenchUniqueJob.done.pop }
    run_wall = now.call - started
    launcher.stop
    run = meter.finish(jobs: count + 1)
    locks_left = redis.call("KEYS", "unique:*").size

    rows << [unique_for ? "on (unique_for: 600)" : "off", push_wall * 1e6 / count, push.commands_per_job, push.cpu_us_per_job,
      run.commands_per_job, run.cpu_us_per_job, run_wall * 1e6 / count, locks_left, push.top(3), run.top(4)]
  end
ensure
  redis.close
  server.stop
  FileUtils.rm_rf(dir)
end

ruby = "#{RUBY_VERSION}#{" +YJIT" if defined?(RubyVM::YJIT) && RubyVM::YJIT.enabled?}"
load = File.exist?("/proc/loadavg") ? File.read("/proc/loadavg").split.first : "?"
puts "Unique jobs: #{count} no-op jobs, one pushing thread, one in-process server (10 threads); Ruby #{ruby}, " \
  "#{server.server_version}, #{Etc.nprocessors} cores, load #{load}"
puts
puts "| unique | push wall µs | Redis cmds/push | Redis µs/push | Redis cmds/job | Redis µs/job | run wall µs/job | locks left |"
puts "|---|---:|---:|---:|---:|---:|---:|---:|"
rows.each do |name, pw, pc, pu, rc, ru, rw, left, *|
  puts format("| %s | %.1f | %.2f | %.2f | %.2f | %.2f | %.1f | %d |", name, pw, pc, pu, rc, ru, rw, left)
end
puts
rows.each do |name, *, push_top, run_top|
  puts "#{name}: push #{push_top.map { |c, n, us| format("%s %.2f (%.2f µs)", c, n, us) }.join(", ")}; " \
    "run #{run_top.map { |c, n, us| format("%s %.2f (%.2f µs)", c, n, us) }.join(", ")}"
end
