# frozen_string_literal: true

# Deckhand's own Ruby in a plain perform_async, with the Redis round trip
# taken out: the store's pipeline is replaced by one that takes the commands
# and answers as Redis answers a push that took them (LPUSH and SADD
# replies). What is left is what Deckhand adds to redis-client's socket
# work and the kernel's, which cost Sidekiq the same. Prints the median CPU
# ns and objects a call over 7 rounds, in turns: the whole perform_async,
# the store's write (Store::Jobs::Queues.push), its held push alone
# (HeldPush.write_sets) and the bare replaced pipeline. To compare two
# versions, run it in each checkout, taking turns. The pushes write
# nothing; a fresh private redis-server answers the rest (the check of the
# fleet's Sidekiq versions, every few seconds).
#
#   ruby --yjit bench/push_cost.rb [CALLS_A_ROUND]   # default 50,000
ENV["BUNDLE_GEMFILE"] ||= File.expand_path("../Gemfile", __dir__)
require "bundler/setup"
require "json"
require "logger"
require "tmpdir"
require_relative "../lib/deckhand"
require_relative "../lib/deckhand/dev_redis"

class BenchPushCostJob
  include Deckhand::Job

  def perform(*) = nil
end

# Takes the commands; answers a push's two Integer replies.
class BenchNoRedisPipe
  REPLIES = [1, 1].freeze

  def call_v(_command) = nil

  def call(*) = nil
end

calls = Integer(ARGV[0] || 50_000)
dir = Dir.mktmpdir("deckhand-bench-push-cost")
server = Deckhand::DevRedis.start(dir: File.join(dir, "redis"), persistent: false)
at_exit do
  server.stop
  FileUtils.rm_rf(dir)
end
config = Deckhand.config
config.redis = {url: server.url}
config.logger.level = Logger::WARN
store = config.store
pipe = BenchNoRedisPipe.new
store.define_singleton_method(:pipelined) do |exception: true, &block|
  block.call(pipe)
  BenchNoRedisPipe::REPLIES
end
args = ["bench", 1, {"id" => 1, "tag" => "bench"}]
json = JSON.generate({"class" => "BenchPushCostJob", "args" => args, "queue" => "default", "retry" => true,
  "jid" => "0" * 24, "created_at" => 1, "enqueued_at" => 2})
parts = {
  "perform_async" => -> { BenchPushCostJob.perform_async(*args) },
  "Queues.push" => -> { Deckhand::Store::Jobs::Queues.push(store, {"default" => [json]}, [], nil, fair: config.fair_queues, logger: config.logger) },
  "HeldPush.write_sets" => -> { Deckhand::Store::Jobs::HeldPush.write_sets(store, {"default" => [json]}, {}, nil) },
  "the pipeline alone" => lambda do
    store.pipelined(exception: false) do |p|
      p.call_v(1)
      p.call_v(2)
    end
  end
}
parts.each_value { |part| 20_000.times { part.call } } # warm (YJIT)
cpu = -> { Process.clock_gettime(Process::CLOCK_PROCESS_CPUTIME_ID) }
samples = Hash.new { |hash, name| hash[name] = [[], []] }
7.times do
  parts.each do |name, part|
    GC.start
    objects = GC.stat(:total_allocated_objects)
    started = cpu.call
    calls.times { part.call }
    samples[name][0] << (cpu.call - started) * 1e9 / calls
    samples[name][1] << (GC.stat(:total_allocated_objects) - objects).fdiv(calls)
  end
end
median = ->(list) { list.sort[list.size / 2] }
yjit = (defined?(RubyVM::YJIT) && RubyVM::YJIT.enabled?) ? "on" : "off"
load = File.exist?("/proc/loadavg") ? File.read("/proc/loadavg").split.first(3).join(" ") : "?"
puts "#{RUBY_DESCRIPTION}, YJIT #{yjit}, Deckhand #{Deckhand::VERSION}, #{server.server_version}, load #{load}"
samples.each do |name, (times, objects)|
  puts format("%-20s %7.0f ns (min %7.0f)  %5.1f objects", name, median.call(times), times.min, median.call(objects))
end
