# frozen_string_literal: true

# Deckhand and Sidekiq on MRI and on JRuby 9.4, same run, same machine, one
# private redis-server: no-op jobs, CPU-bound jobs (20 ms of pure Ruby
# arithmetic, sized on MRI here and then the same work everywhere) and, for
# Deckhand, iterable jobs of ten steps; 10 threads, one server process each.
# For each: jobs/s and threads the server started per 10,000 jobs. Run from
# MRI; bin/jruby installs JRuby and its bundle when missing.
#
#   bundle exec ruby bench/jruby.rb                     # prints the table, writes bench/results/<date>-jruby.md
#   bundle exec ruby bench/jruby.rb --quick             # small counts, a smoke run
#   bundle exec ruby bench/jruby.rb --rounds 3 --only cpu --out bench/results/cpu.md
#
# Every server gets a warm-up share of jobs before its window opens (the
# JVM's compilers need it; MRI gets the same), then the probe times the rest.
# No-op jobs get 50,000 of each: after 10,000 a JRuby server on a loaded
# 2-core machine was still compiling, and ran at a fifth of its warm speed.
# BENCH_JRUBY_OPTS sets the JRuby servers' JRUBY_OPTS; by default
# invokedynamic is on, as docs/jruby.md advises for servers (without it the
# CPU-bound job cost about twice the CPU on JRuby); BENCH_JRUBY_OPTS=""
# measures JRuby's own defaults.
require "optparse"
require "json"
require "etc"
require "time"
require_relative "../lib/deckhand"
require_relative "lib/deckhand_bench/lab"
require_relative "lib/deckhand_bench/probe"
require_relative "lib/deckhand_bench/stats"

module DeckhandBench
  # The JRuby comparison: see the top of bench/jruby.rb.
  class JRubyBench
    ROOT = File.expand_path("..", __dir__)
    TARGET_MS = 20.0
    JRUBY_OPTS = ENV.fetch("BENCH_JRUBY_OPTS", "-Xcompile.invokedynamic=true")
    WORKLOADS = {
      # name => [job class, measured jobs, warm-up jobs, quick measured, quick warm-up]
      "noop" => ["BenchNoopJob", 50_000, 50_000, 2_000, 1_000],
      "cpu" => ["BenchArithmeticJob", 600, 300, 60, 30],
      "iterable" => ["BenchIterableJob", 10_000, 5_000, 1_000, 500]
    }.freeze

    Run = Struct.new(:label, :system, :ruby, keyword_init: true)

    def initialize(rounds:, quick:, only:, out: nil)
      @out = out
      @rounds = rounds
      @quick = quick
      @only = only
      @rows = []
    end

    def call
      abort "bench/jruby.rb runs from MRI (it starts the JRuby servers itself)" if RUBY_ENGINE == "jruby"
      system(File.join(ROOT, "bin/jruby"), "--setup-only", exception: true)
      @load_before = load_average
      @rounds_per_ms = calibrate
      Lab.open(yjit: false) do |lab|
        @lab = lab
        @server_version = lab.server_version
        WORKLOADS.each_key { |workload| measure_workload(workload) if @only.nil? || @only.include?(workload) }
      end
      @load_after = load_average
      report = markdown
      puts report
      write(report) unless @quick
    end

    private

    def runs
      list = [Run.new(label: "Deckhand, MRI", system: :deckhand, ruby: :mri), Run.new(label: "Deckhand, JRuby", system: :deckhand, ruby: :jruby)]
      list << Run.new(label: "Sidekiq, MRI", system: :sidekiq, ruby: :mri) << Run.new(label: "Sidekiq, JRuby", system: :sidekiq, ruby: :jruby) if sidekiq?
      list
    end

    def sidekiq?
      require "sidekiq"
      true
    rescue LoadError
      false
    end

    # Arithmetic rounds for 20 ms on this MRI, one thread, after a warm-up.
    # The fastest of 20 timings: on a loaded machine their mean grows with
    # the load (it once sized the job to 8 ms), their minimum does not.
    def calibrate
      10.times { Probe.arithmetic(100_000) }
      per_round = Array.new(20) do
        started = monotonic
        Probe.arithmetic(100_000)
        (monotonic - started) / 100_000
      end.min
      (TARGET_MS / 1000 / per_round).round
    end

    def measure_workload(workload)
      klass, count, warmup, quick_count, quick_warmup = WORKLOADS.fetch(workload)
      count, warmup = quick_count, quick_warmup if @quick
      runs.each do |run|
        next if workload == "iterable" && run.system == :sidekiq
        samples = Array.new(@rounds) { measure(run, klass, count, warmup) }
        rate = Stats.median(samples.map { |r| r["jobs"] / r["seconds"] })
        threads = Stats.median(samples.map { |r| r["threads_started"] * 10_000.0 / r["jobs"] })
        cpu = Stats.median(samples.map { |r| r["cpu_seconds"] * 1_000_000 / r["jobs"] })
        @rows << {workload: workload, run: run.label, rate: rate, threads: threads, cpu_us: cpu, samples: samples.map { |r| (r["jobs"] / r["seconds"]).round }}
        puts format("%-9s %-16s %10.1f jobs/s  %6.1f threads/10k jobs  (load %s)", workload, run.label, rate, threads, load_average)
      end
    end

    def measure(run, klass, count, warmup)
      @lab.fresh!
      push(klass, count + warmup)
      child = ServerChild.new(command(run), env: env(run, count + warmup, warmup), dir: @lab.dir,
        log: File.join(@lab.dir, "#{run.system}-#{run.ruby}.log")).start
      JSON.parse(child.wait_report(@lab.redis, Probe::FINISHED, timeout: 600))
    ensure
      child&.stop
    end

    def push(klass, total)
      client = Deckhand::Client.new(config: Deckhand::Config.new(redis: {url: @lab.url}))
      (0...total).each_slice(5_000) do |slice|
        client.push_bulk("class" => klass, "queue" => "bench", "args" => slice.map { |n| Probe.args(n) })
      end
    end

    def command(run)
      ruby = (run.ruby == :jruby) ? [File.join(ROOT, "bin/jruby"), "-rbundler/setup"] : [RbConfig.ruby]
      server = if run.system == :deckhand
        [File.join(ROOT, "exe/deckhand"), "-r", File.join(ROOT, "bench/app/jruby_deckhand_app.rb")]
      else
        ["-e", 'load Gem.bin_path("sidekiq", "sidekiq")', "--", "-r", File.join(ROOT, "bench/app/jruby_sidekiq_app.rb")]
      end
      [*ruby, *server, "-c", "10", "-q", "bench"]
    end

    def env(run, expect, warmup)
      env = {"REDIS_URL" => @lab.url, "BENCH_REDIS_URL" => @lab.url, "BENCH_EXPECT" => expect.to_s,
             "BENCH_WARMUP" => warmup.to_s, "BENCH_ARITH_ROUNDS" => @rounds_per_ms.to_s, "APP_ENV" => "production"}
      if run.ruby == :jruby
        # bin/jruby points Bundler at JRuby's own bundle; no --dev: full JIT.
        env.merge("RUBYOPT" => nil, "BUNDLE_GEMFILE" => nil, "JRUBY_OPTS" => JRUBY_OPTS)
      else
        env.merge("RUBYOPT" => "-rbundler/setup", "BUNDLE_GEMFILE" => File.join(ROOT, "Gemfile"))
      end
    end

    def load_average = File.read("/proc/loadavg").split.first(3).join(" ")

    def monotonic = ::Process.clock_gettime(::Process::CLOCK_MONOTONIC)

    def jruby_version
      `#{File.join(ROOT, "bin/jruby")} -v 2>/dev/null`.lines.first.to_s.strip
    end

    def markdown
      lines = ["# Deckhand on JRuby and MRI#{" (quick)" if @quick}", "",
        "- Date: #{Time.now.utc.iso8601}; machine: #{Etc.nprocessors} cores; load average before #{@load_before}, after #{@load_after}",
        "- MRI: #{RUBY_DESCRIPTION}", "- JRuby: #{jruby_version} (JRUBY_OPTS=#{JRUBY_OPTS.inspect})",
        "- #{@server_version}; Deckhand #{Deckhand::VERSION}#{"; Sidekiq #{Sidekiq::VERSION}" if defined?(Sidekiq::VERSION)}",
        "- One server process, 10 threads (`-c 10`), queue `bench`; median of #{@rounds} round(s); CPU-bound job: " \
          "#{@rounds_per_ms} rounds of integer arithmetic (#{TARGET_MS.round} ms on this MRI, one thread)",
        "- Command: `bundle exec ruby bench/jruby.rb#{" --rounds #{@rounds}" if @rounds != 1}#{" --only #{@only.join(",")}" if @only}`", "",
        "| workload | server | jobs/s | threads started per 10,000 jobs | CPU µs per job | samples (jobs/s) |",
        "| --- | --- | ---: | ---: | ---: | --- |"]
      @rows.each do |row|
        lines << format("| %s | %s | %.1f | %.1f | %.0f | %s |", row[:workload], row[:run], row[:rate], row[:threads], row[:cpu_us], row[:samples].join(" / "))
      end
      lines.concat(ratios)
      lines.join("\n") + "\n"
    end

    def ratios
      ratio = lambda do |workload, system|
        jruby = @rows.find { |r| r[:workload] == workload && r[:run] == "#{system}, JRuby" }
        mri = @rows.find { |r| r[:workload] == workload && r[:run] == "#{system}, MRI" }
        jruby && mri && jruby[:rate] / mri[:rate]
      end
      out = ["", "JRuby ÷ MRI (jobs/s):", ""]
      @rows.map { |r| r[:workload] }.uniq.each do |workload|
        %w[Deckhand Sidekiq].each do |system|
          value = ratio.call(workload, system)
          out << format("- %s, %s: %.2f×", workload, system, value) if value
        end
      end
      out
    end

    def write(report)
      path = @out || File.join(ROOT, "bench/results", "#{Time.now.utc.strftime("%Y-%m-%d")}-jruby.md")
      File.write(path, report)
      puts "written: #{path.delete_prefix("#{ROOT}/")}"
    end
  end
end

if $PROGRAM_NAME == __FILE__
  options = {rounds: 1, quick: false, only: nil}
  OptionParser.new do |o|
    o.on("--rounds N", Integer) { |n| options[:rounds] = n }
    o.on("--quick") { options[:quick] = true }
    o.on("--only LIST", Array, "noop,cpu,iterable") { |list| options[:only] = list }
    o.on("--out PATH", "where the Markdown goes (default bench/results/<date>-jruby.md)") { |path| options[:out] = File.expand_path(path) }
  end.parse!
  DeckhandBench::JRubyBench.new(**options).call
end
