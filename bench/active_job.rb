# frozen_string_literal: true

# Active Job on Deckhand against Active Job on Sidekiq, side by side: N no-op
# Active Job jobs pushed with ActiveJob.perform_all_later, then one server
# process with 10 threads (YJIT on) drains them; and the ceiling Active Job
# itself sets, `ActiveJob::Base.execute` run in a loop on one thread, since a
# server can never beat it with Ruby's global lock. Medians of the rounds.
# Each figure also comes as CPU time a job (the server process, all its
# threads), which other load on a shared machine disturbs less than jobs/s.
#
#   bundle exec ruby bench/active_job.rb [--jobs 30000] [--rounds 3] [--threads 10]

require "optparse"
require "json"
require_relative "lib/deckhand_bench/lab"
require "etc"
require_relative "lib/deckhand_bench/stats"
require_relative "lib/deckhand_bench/probe"

module ActiveJobBench
  APP = File.expand_path("app/active_job_app.rb", __dir__)
  EXE = {"deckhand" => File.expand_path("../exe/deckhand", __dir__), "sidekiq" => Gem.bin_path("sidekiq", "sidekiq")}.freeze

  # Pushes in a child process, as an application would (each system's own adapter).
  PUSH = <<~RUBY
    require ENV.fetch("BENCH_APP")
    jobs = Array.new(Integer(ARGV[0])) { |i| BenchAjNoopJob.new("bench", i, {"id" => i, "tag" => "bench"}) }
    jobs.each_slice(1_000) { |slice| ActiveJob.perform_all_later(slice) }
  RUBY

  # Active Job's own cost: deserialize and perform, nothing else.
  CEILING = <<~RUBY
    require ENV.fetch("BENCH_APP")
    module DeckhandBench::Probe; def self.tick = nil; end
    data = BenchAjNoopJob.new("bench", 1, {"id" => 1, "tag" => "bench"}).serialize
    n = Integer(ARGV[0])
    2_000.times { ActiveJob::Base.execute(data.dup) }
    t = Process.clock_gettime(Process::CLOCK_MONOTONIC)
    cpu = Process.clock_gettime(Process::CLOCK_PROCESS_CPUTIME_ID)
    n.times { ActiveJob::Base.execute(data.dup) }
    puts n / (Process.clock_gettime(Process::CLOCK_MONOTONIC) - t)
    puts (Process.clock_gettime(Process::CLOCK_PROCESS_CPUTIME_ID) - cpu) * 1e6 / n
  RUBY

  module_function

  def run(jobs:, rounds:, threads:)
    results = {}
    cpu = {}
    DeckhandBench::Lab.open(yjit: true) do |lab|
      puts "Ruby #{RUBY_VERSION} (YJIT in the children), Redis #{lab.redis_version}, #{Etc.nprocessors} cores, " \
        "load #{File.read("/proc/loadavg").split.first(3).join(" ")}"
      rounds.times do |round|
        order = round.even? ? %w[deckhand sidekiq] : %w[sidekiq deckhand]
        order.each { |system| results[system], cpu[system] = record(results[system], cpu[system], drain(lab, system, jobs, threads)) }
        results["ceiling"], cpu["ceiling"] = record(results["ceiling"], cpu["ceiling"], ceiling(lab, jobs))
        puts "round #{round + 1}: " + results.map { |k, v| "#{k} #{v.last.round}/s (#{cpu[k].last.round(1)} µs CPU)" }.join(", ")
      end
    end
    median = ->(h) { h.transform_values { |v| DeckhandBench::Stats.median(v) } }
    report(median.call(results), median.call(cpu), jobs, threads)
  end

  def record(rates, cpus, (rate, cpu)) = [[*rates, rate], [*cpus, cpu]]

  def drain(lab, system, jobs, threads)
    lab.fresh!
    env = {"BENCH_SYSTEM" => system, "BENCH_APP" => APP}
    script(lab, PUSH, jobs, env)
    child = lab.server(Struct.new(:name).new(system), [EXE.fetch(system), "-r", APP, "-c", threads, "-q", "bench"],
      expect: jobs, extra_env: env)
    report = JSON.parse(child.wait_report(lab.redis, DeckhandBench::Probe::FINISHED, timeout: 120 + jobs * 0.01))
    [report["jobs"] / report["seconds"], report["cpu_seconds"] * 1e6 / report["jobs"]]
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

  def report(median, cpu, jobs, threads)
    d, s, c = median.values_at("deckhand", "sidekiq", "ceiling")
    dc, sc, cc = cpu.values_at("deckhand", "sidekiq", "ceiling")
    puts
    puts "Active Job, #{jobs} no-op jobs (perform_all_later), one server process, #{threads} threads, YJIT, medians:"
    puts format("  Deckhand adapter   %8.0f jobs/s  (%.2fx Sidekiq's adapter, %d %% of Active Job's own ceiling)", d, d / s, (100 * d / c).round)
    puts format("  Sidekiq adapter    %8.0f jobs/s  (%d %% of the ceiling)", s, (100 * s / c).round)
    puts format("  ActiveJob::Base.execute alone, one thread: %.0f jobs/s (%.1f µs a job)", c, 1e6 / c)
    puts "CPU time a job (server process, all threads; the ceiling's loop), medians:"
    puts format("  Deckhand %.1f µs, Sidekiq %.1f µs, ceiling %.1f µs: Deckhand %.2fx Sidekiq's rate, %d %% of the ceiling's",
      dc, sc, cc, sc / dc, (100 * cc / dc).round)
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
