# frozen_string_literal: true

require "json"
require "redis_client"
require_relative "thread_counter"

module DeckhandBench
  # Loaded into every benchmarked server process, Deckhand's and Sidekiq's
  # alike, so both are measured by the same code. Jobs call #tick when they
  # finish; the first tick opens the measuring window and the expected last
  # one closes it and pushes a report to Redis, where the bench waits for it
  # with BLPOP. Nothing touches Redis per job, so the probe costs the same
  # few instructions in both systems and no round trips.
  #
  #   ENV["BENCH_REDIS_URL"] = "redis://127.0.0.1:6400/0"  # direct, never through the latency proxy
  #   ENV["BENCH_EXPECT"] = "100000"
  #   ENV["BENCH_WARMUP"] = "5000"                        # of those, the first ones done open no window (JIT warm-up)
  #   DeckhandBench::Probe.install                       # count the server's own Redis commands
  #   DeckhandBench::Probe.tick                          # at the end of each job
  #
  # With BENCH_PROFILE=path (and the stackprof gem loadable), the measuring
  # window is profiled too: BENCH_PROFILE_MODE=cpu (default), wall or object.
  module Probe
    FINISHED = "bench:finished"
    LATENCY = "bench:latency"
    SIEVE_LIMIT = 3_000 # about half a millisecond of Ruby (YJIT, 2026 server core)
    IO_SECONDS = 0.05

    # The arguments every benchmark job gets: a string, an integer, a small hash.
    def self.args(number, extra = nil)
      options = {"id" => number, "tag" => "bench"}
      options.merge!(extra) if extra
      ["bench", number, options]
    end

    # Counts commands and round trips of every RedisClient in the process.
    module CommandCounter
      def call(command, config)
        Probe.sent(1)
        super
      end

      def call_pipelined(commands, config)
        Probe.sent(commands.size)
        super
      end
    end

    @lock = Mutex.new
    @report_lock = Mutex.new # a report's own RPUSH is counted under @lock
    @done = 0
    @commands = 0
    @round_trips = 0
    @window = nil
    @expected = Integer(ENV.fetch("BENCH_EXPECT", "0"))
    @warmup = Integer(ENV.fetch("BENCH_WARMUP", "0"))

    class << self
      def install
        RedisClient.register(CommandCounter)
        ThreadCounter.install
        self
      end

      def sent(count)
        @lock.synchronize do
          @commands += count
          @round_trips += 1
        end
      end

      attr_reader :expected

      def tick
        last = @lock.synchronize do
          @done += 1
          if @done == @warmup + 1
            @window = snapshot
            NewsAges.reset if defined?(NewsAges)
            profile_start
          end
          @done == @expected
        end
        return unless last
        profile_stop
        report(FINISHED, JSON.generate(measure))
      end

      # For push-to-start latency: the job's start minus the push time it
      # carries (epoch seconds), in microseconds.
      def started(pushed_at)
        latency = ::Process.clock_gettime(::Process::CLOCK_REALTIME) - pushed_at
        report(LATENCY, (latency * 1_000_000).round.to_s)
      end

      # A prime sieve: the CPU-bound job of the mixed workload.
      def sieve(limit)
        composite = Array.new(limit + 1, false)
        count = 0
        (2..limit).each do |n|
          next if composite[n]
          count += 1
          (n * n).step(limit, n) { |m| composite[m] = true }
        end
        count
      end

      # Pure Ruby integer arithmetic, no allocation: the CPU-bound job of
      # bench/jruby.rb, which sizes `rounds` to 20 ms on MRI.
      def arithmetic(rounds)
        x = 1
        i = 0
        while i < rounds
          x = (x * 31 + i) % 1_000_003
          i += 1
        end
        x
      end

      private

      def profile_start
        return unless ENV["BENCH_PROFILE"]
        require "stackprof"
        mode = ENV.fetch("BENCH_PROFILE_MODE", "cpu").to_sym
        StackProf.start(mode: mode, interval: (mode == :object) ? 1 : 500, raw: true)
      end

      def profile_stop
        return unless ENV["BENCH_PROFILE"]
        StackProf.stop
        StackProf.results(ENV["BENCH_PROFILE"])
      end

      def snapshot
        {at: monotonic, cpu: cpu_seconds,
         allocated: gc_stat(:total_allocated_objects), gc: GC.count, gc_ms: gc_stat(:time), major_gc: gc_stat(:major_gc_count), threads: ThreadCounter.started,
         system: ::Process.times.stime, sleeps: thread_sleeps,
         commands: @commands, round_trips: @round_trips}
      end

      # Times the process's threads went to sleep (waiting for work, a lock,
      # I/O or the global lock), summed over its threads; 0 without /proc.
      def thread_sleeps
        Dir.glob("/proc/self/task/*/status").sum do |path|
          File.read(path)[/^voluntary_ctxt_switches:\s*(\d+)/, 1].to_i
        rescue SystemCallError # a thread that ended meanwhile
          0
        end
      end

      # The process's CPU time, all threads; JRuby has no CLOCK_PROCESS_CPUTIME_ID.
      def cpu_seconds
        return ::Process.clock_gettime(::Process::CLOCK_PROCESS_CPUTIME_ID) unless RUBY_ENGINE == "jruby"
        Java::JavaLangManagement::ManagementFactory.getOperatingSystemMXBean.getProcessCpuTime / 1e9
      end

      # JRuby has neither figure: 0 there.
      def gc_stat(key) = (RUBY_ENGINE == "jruby") ? 0 : GC.stat(key)

      # The window runs from the first job's end after the warm-up to the
      # last one's: jobs - warm-up - 1 jobs.
      def measure
        now = snapshot
        jobs = @done - @warmup - 1
        {
          "pid" => ::Process.pid, "jobs" => jobs, "seconds" => now[:at] - @window[:at],
          "cpu_seconds" => now[:cpu] - @window[:cpu], # all threads: less disturbed by other load than wall time
          "allocated" => now[:allocated] - @window[:allocated], "gc_runs" => now[:gc] - @window[:gc], "gc_ms" => now[:gc_ms] - @window[:gc_ms],
          "major_gc_runs" => now[:major_gc] - @window[:major_gc], "live_objects" => gc_stat(:heap_live_slots),
          "system_seconds" => now[:system] - @window[:system], "thread_sleeps" => now[:sleeps] - @window[:sleeps],
          "threads_started" => now[:threads] - @window[:threads],
          "commands" => now[:commands] - @window[:commands],
          "round_trips" => now[:round_trips] - @window[:round_trips], "rss_kb" => rss_kb
        }.merge(defined?(NewsAges) ? NewsAges.summary : {})
      end

      def report(key, value)
        @report_lock.synchronize do
          @redis ||= RedisClient.new(url: ENV.fetch("BENCH_REDIS_URL"))
          @redis.call("RPUSH", key, value)
        end
      end

      def rss_kb
        File.foreach("/proc/self/status") { |line| return line.split[1].to_i if line.start_with?("VmRSS:") }
        0
      rescue SystemCallError
        `ps -o rss= -p #{::Process.pid}`.to_i
      end

      def monotonic = ::Process.clock_gettime(::Process::CLOCK_MONOTONIC)
    end
  end
end
