# frozen_string_literal: true

# Active Job on Deckhand against Active Job on Sidekiq, side by side: N no-op
# Active Job jobs pushed with ActiveJob.perform_all_later, then one server
# process with 10 threads (YJIT on) drains them; and the ceiling Active Job
# itself sets, `ActiveJob::Base.execute` run in a loop on one thread, since a
# server can never beat it with Ruby's global lock; and the floor, the same
# loop on data parsed from JSON each time, what any server that reads jobs
# from Redis must at least do. Medians of the rounds.
# Each figure also comes as CPU time a job (the server process, all its
# threads), which other load on a shared machine disturbs less than jobs/s,
# and as Redis' CPU time a job (its main thread, from the server's start to
# its last job, boot included, as bench/run counts it).
#
#   bundle exec ruby bench/active_job.rb [--jobs 30000] [--rounds 3] [--threads 10]
#
# BENCH_AJ_APP=path has the servers load another application file instead
# (one that requires app/active_job_app.rb and adds a watcher of its own).

require "optparse"
require "json"
require_relative "lib/deckhand_bench/lab"
require "etc"
require_relative "lib/deckhand_bench/stats"
require_relative "lib/deckhand_bench/probe"
require_relative "lib/deckhand_bench/redis_meter"

module ActiveJobBench
  APP = ENV["BENCH_AJ_APP"] || File.expand_path("app/active_job_app.rb", __dir__)
  EXE = {"deckhand" => File.expand_path("../exe/deckhand", __dir__), "sidekiq" => Gem.bin_path("sidekiq", "sidekiq")}.freeze

  # Pushes in a child process, as an application would (each system's own adapter).
  PUSH = <<~RUBY
    require ENV.fetch("BENCH_APP")
    jobs = Array.new(Integer(ARGV[0])) { |i| BenchAjNoopJob.new("bench", i, {"id" => i, "tag" => "bench"}) }
    jobs.each_slice(1_000) { |slice| ActiveJob.perform_all_later(slice) }
  RUBY

  # Active Job's own cost: deserialize and perform, nothing else (the
  # ceiling); then the same on the job's data parsed from JSON each time, the
  # least a server that reads jobs from Redis can do (the floor's cost).
  # Prints jobs/s and CPU µs a job for each.
  CEILING = <<~RUBY
    require ENV.fetch("BENCH_APP")
    module DeckhandBench::Probe; def self.tick = nil; end
    data = BenchAjNoopJob.new("bench", 1, {"id" => 1, "tag" => "bench"}).serialize
    json = JSON.generate(data)
    n = Integer(ARGV[0])
    [-> { ActiveJob::Base.execute(data.dup) }, -> { ActiveJob::Base.execute(JSON.parse(json)) }].each do |part|
      2_000.times { part.call }
      t = Process.clock_gettime(Process::CLOCK_MONOTONIC)
      cpu = Process.clock_gettime(Process::CLOCK_PROCESS_CPUTIME_ID)
      n.times { part.call }
      puts n / (Process.clock_gettime(Process::CLOCK_MONOTONIC) - t)
      puts (Process.clock_gettime(Process::CLOCK_PROCESS_CPUTIME_ID) - cpu) * 1e6 / n
    end
  RUBY

  module_function

  # One server's drain, per job: jobs/s, CPU µs (all threads), of which
  # garbage collection and the kernel, how often its threads went to
  # sleep, and Redis' CPU µs.
  Drain = Struct.new(:rate, :cpu, :gc, :kernel, :sleeps, :redis)

  def run(jobs:, rounds:, threads:)
    results = {}
    cpu = {}
    drains = Hash.new { |hash, system| hash[system] = [] }
    DeckhandBench::Lab.open(yjit: true) do |lab|
      puts "Ruby #{RUBY_VERSION} (YJIT in the children), #{lab.server_version}, #{Etc.nprocessors} cores, " \
        "load #{File.read("/proc/loadavg").split.first(3).join(" ")}"
      rounds.times do |round|
        order = round.even? ? %w[deckhand sidekiq] : %w[sidekiq deckhand]
        order.each do |system|
          drain = drain(lab, system, jobs, threads)
          drains[system] << drain
          results[system], cpu[system] = record(results[system], cpu[system], [drain.rate, drain.cpu])
        end
        ceiling, floor = ceiling(lab, jobs).each_slice(2).to_a
        results["ceiling"], cpu["ceiling"] = record(results["ceiling"], cpu["ceiling"], ceiling)
        results["floor"], cpu["floor"] = record(results["floor"], cpu["floor"], floor)
        puts "round #{round + 1}: " + results.map { |k, v| "#{k} #{v.last.round}/s (#{cpu[k].last.round(1)} µs CPU)" }.join(", ") +
          "; Redis CPU a job: " + drains.map { |k, v| "#{k} #{v.last.redis.round(2)} µs" }.join(", ") +
          " (load #{File.read("/proc/loadavg").split.first(3).join(" ")})"
      end
    end
    median = ->(h) { h.transform_values { |v| DeckhandBench::Stats.median(v) } }
    parts = drains.transform_values { |list| Drain.new(*Drain.members.map { |m| DeckhandBench::Stats.median(list.map(&m)) }) }
    report(median.call(results), median.call(cpu), parts, jobs, threads)
  end

  def record(rates, cpus, (rate, cpu)) = [[*rates, rate], [*cpus, cpu]]

  def drain(lab, system, jobs, threads)
    lab.fresh!
    env = {"BENCH_SYSTEM" => system, "BENCH_APP" => APP}
    script(lab, PUSH, jobs, env)
    meter = DeckhandBench::RedisMeter.new(lab.redis).start
    child = lab.server(Struct.new(:name).new(system), [EXE.fetch(system), "-r", APP, "-c", threads, "-q", "bench"],
      expect: jobs, extra_env: env)
    report = JSON.parse(child.wait_report(lab.redis, DeckhandBench::Probe::FINISHED, timeout: 120 + jobs * 0.01))
    done = report["jobs"].to_f
    redis = meter.finish(jobs: jobs, extra: {"rpush" => 1}).cpu_us_per_job
    Drain.new(done / report["seconds"], report["cpu_seconds"] * 1e6 / done, report["gc_ms"] * 1e3 / done,
      report["system_seconds"] * 1e6 / done, report["thread_sleeps"] / done, redis)
  ensure
    child&.stop
  end

  def ceiling(lab, jobs)
    script(lab, CEILING, jobs, {"BENCH_SYSTEM" => "deckhand", "BENCH_APP" => APP}).split.map { |line| Float(line) }
  end

  def script(lab, code, arg, env)
    path = File.join(lab.dir, "bench_script.rb")
    File.write(path, code)
    lab.run(path, arg, env: env)
  end

  def report(median, cpu, parts, jobs, threads)
    d, s, c, f = median.values_at("deckhand", "sidekiq", "ceiling", "floor")
    dc, sc, cc, fc = cpu.values_at("deckhand", "sidekiq", "ceiling", "floor")
    puts
    puts "Active Job, #{jobs} no-op jobs (perform_all_later), one server process, #{threads} threads, YJIT, medians:"
    puts format("  Deckhand adapter   %8.0f jobs/s  (%.2fx Sidekiq's adapter, %d %% of Active Job's own ceiling)", d, d / s, (100 * d / c).round)
    puts format("  Sidekiq adapter    %8.0f jobs/s  (%d %% of the ceiling)", s, (100 * s / c).round)
    puts format("  ActiveJob::Base.execute alone, one thread: %.0f jobs/s (%.1f µs a job)", c, 1e6 / c)
    puts format("  execute on data parsed from JSON, one thread (the least a server reading jobs from Redis does): " \
      "%.0f jobs/s, %d %% of the ceiling", f, (100 * f / c).round)
    puts "CPU time a job (server process, all threads; the ceiling's loop), medians:"
    puts format("  Deckhand %.1f µs, Sidekiq %.1f µs, ceiling %.1f µs, floor %.1f µs: Deckhand %.2fx Sidekiq's rate, " \
      "%d %% of the ceiling's, %d %% of the floor's", dc, sc, cc, fc, sc / dc, (100 * cc / dc).round, (100 * fc / dc).round)
    deckhand, sidekiq = parts.values_at("deckhand", "sidekiq")
    puts format("  of which garbage collection: Deckhand %.1f µs, Sidekiq %.1f µs; in the kernel: Deckhand %.1f µs, Sidekiq %.1f µs",
      deckhand.gc, sidekiq.gc, deckhand.kernel, sidekiq.kernel)
    puts format("Threads put to sleep a job (waiting for work, a lock, I/O or Ruby's global lock): Deckhand %.3f, Sidekiq %.3f",
      deckhand.sleeps, sidekiq.sleeps)
    puts format("Redis CPU time a job (its main thread, boot included): Deckhand %.2f µs, Sidekiq %.2f µs", deckhand.redis, sidekiq.redis)
  end
end

if $PROGRAM_NAME == __FILE__
  options = {jobs: 30_000, rounds: 3, threads: 10}
  OptionParser.new do |o|
    o.on("--jobs N", Integer) { |n| options[:jobs] = n }
    o.on("--rounds N", Integer) { |n| options[:rounds] = n }
    o.on("--threads N", Integer) { |n| options[:threads] = n }
  end.parse!
  $stdout.sync = true
  ActiveJobBench.run(**options)
end
