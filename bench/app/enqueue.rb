# frozen_string_literal: true

# Times how fast one process pushes no-op jobs with one system's own client
# and prints {"single": jobs/s, "bulk": jobs/s} as JSON, with the CPU time
# (µs, the whole process) and objects allocated a `perform_async`
# ("single_cpu_us", "single_objects"): at the round-trip floor jobs/s moves
# with the machine's load, CPU and objects much less.
#
#   REDIS_URL=redis://127.0.0.1:6400/0 BENCH_REDIS_URL=$REDIS_URL \
#     ruby bench/app/enqueue.rb deckhand 10000 100000
#
# The same code runs for both systems: only the app file (and so the job
# class's mixin) differs.
system, singles, bulk = ARGV
unless %w[deckhand sidekiq].include?(system) && bulk
  abort "usage: enqueue.rb deckhand|sidekiq PERFORM_ASYNC_COUNT PERFORM_BULK_COUNT"
end
require_relative "#{system}_app"

singles = Integer(singles)
bulk = Integer(bulk)
probe = DeckhandBench::Probe
redis = RedisClient.new(url: ENV.fetch("BENCH_REDIS_URL"))
args = probe.args(1)
list = Array.new(bulk) { |i| probe.args(i) }

cpu = -> { Process.clock_gettime(Process::CLOCK_PROCESS_CPUTIME_ID) }
timed = lambda do |&block|
  GC.start
  started = Process.clock_gettime(Process::CLOCK_MONOTONIC)
  block.call
  Process.clock_gettime(Process::CLOCK_MONOTONIC) - started
end

# Warm up the code paths (and YJIT), the connection pool and Redis.
[singles / 10, 100].max.times { BenchNoopJob.perform_async(*args) }
BenchNoopJob.perform_bulk(list.first([bulk / 10, 1_000].max))
redis.call("FLUSHDB")

single_cpu = single_objects = nil
single_seconds = timed.call do
  cpu_before = cpu.call
  objects_before = GC.stat(:total_allocated_objects)
  singles.times { BenchNoopJob.perform_async(*args) }
  single_objects = GC.stat(:total_allocated_objects) - objects_before
  single_cpu = cpu.call - cpu_before
end
redis.call("FLUSHDB")
bulk_seconds = timed.call { BenchNoopJob.perform_bulk(list) }
redis.call("FLUSHDB")

puts JSON.generate("single" => singles / single_seconds, "bulk" => bulk / bulk_seconds,
  "single_cpu_us" => single_cpu * 1_000_000 / singles, "single_objects" => single_objects.fdiv(singles))
