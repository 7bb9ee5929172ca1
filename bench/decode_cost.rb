# frozen_string_literal: true

# What decoding one fetched job costs a processor thread
# (Deckhand::Payload.decode: UTF-8 check, JSON parse, shape check, and the
# look for numbers too large for a Float), per shape of payload:
#
#   ruby bench/decode_cost.rb [LIB]      # LIB: another checkout's lib/ to compare
#
# Decodes each payload 100,000 times (5,000 for the large one), seven
# times, and prints the best run's CPU time per job (this thread's, so the
# machine's load moves it less than the wall clock) with the Ruby and json
# versions. Compare two trees one right after the other, a few times.
ENV["BUNDLE_GEMFILE"] ||= File.expand_path("../Gemfile", __dir__)
require "bundler/setup"
lib = File.expand_path(ARGV[0] || "../lib", ARGV[0] ? Dir.pwd : __dir__)
$LOAD_PATH.reject! { |path| File.expand_path(path) == File.expand_path("../lib", __dir__) }
$LOAD_PATH.unshift(lib)
require "deckhand"

JID = "b4a577edbccf1d805744efa9"
MS = 1_732_000_000_123
HEAD = {"queue" => "default", "retry" => true, "jid" => JID}.freeze
SHAPES = {
  # bench/app/jobs.rb's arguments, Deckhand's millisecond timestamps
  "plain" => HEAD.merge("class" => "NoopJob", "args" => ["bench", 4711, {"id" => 4711, "tag" => "bench"}],
    "created_at" => MS, "enqueued_at" => MS),
  # drop-in mode: Float seconds
  "drop-in" => HEAD.merge("class" => "NoopJob", "args" => ["bench", 4711, {"id" => 4711, "tag" => "bench"}],
    "created_at" => MS / 1000.0, "enqueued_at" => MS / 1000.0),
  # an Active Job job as Sidekiq's adapter writes it
  "active job" => HEAD.merge("class" => "ActiveJob::QueueAdapters::SidekiqAdapter::JobWrapper", "wrapped" => "WelcomeJob",
    "args" => [{"job_class" => "WelcomeJob", "job_id" => "0f6e2c3a-4c53-4b7e-9d36-2b1f1a5e7c11", "provider_job_id" => nil,
                "queue_name" => "default", "priority" => nil, "arguments" => [{"_aj_globalid" => "gid://app/User/42"}],
                "executions" => 0, "exception_executions" => {}, "locale" => "en", "timezone" => "UTC",
                "enqueued_at" => "2026-11-28T10:11:12.123456789Z", "scheduled_at" => nil}],
    "created_at" => MS / 1000.0, "enqueued_at" => MS / 1000.0),
  # text that is not ASCII
  "unicode" => HEAD.merge("class" => "MailJob", "args" => ["Grüße aus Köln, ½ € " * 4, 42], "created_at" => MS, "enqueued_at" => MS),
  # a retry: failure fields and a compressed backtrace
  "retried" => HEAD.merge("class" => "NoopJob", "args" => [1, 2], "created_at" => MS, "enqueued_at" => MS, "failed_at" => MS,
    "retried_at" => MS, "retry_count" => 3, "error_class" => "ArgumentError", "error_message" => "failed on purpose",
    "error_backtrace" => Deckhand::Payload::Backtrace.compress(Array.new(20) { |i| "app/jobs/noop_job.rb:#{i}:in `perform'" })),
  # 1,000 numbers: a payload with many digits
  "1,000 floats" => HEAD.merge("class" => "SumJob", "args" => [Array.new(1000) { |i| i * 1.25 }], "created_at" => MS, "enqueued_at" => MS)
}.transform_values { |job| JSON.generate(job) }.freeze

N = 100_000
puts "Payload.decode from #{lib}, #{RUBY_DESCRIPTION}, json #{JSON::VERSION}"
SHAPES.each do |name, raw|
  count = (raw.bytesize > 2000) ? N / 20 : N
  best = Array.new(7) do
    started = Process.clock_gettime(Process::CLOCK_THREAD_CPUTIME_ID)
    count.times { Deckhand::Payload.decode(raw) }
    Process.clock_gettime(Process::CLOCK_THREAD_CPUTIME_ID) - started
  end.min
  puts format("  %-13s %6d bytes %8.0f ns CPU per job (best of 7 x %d)", name, raw.bytesize, best / count * 1e9, count)
end
