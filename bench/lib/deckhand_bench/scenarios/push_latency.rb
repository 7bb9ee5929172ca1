# frozen_string_literal: true

require_relative "scenario"
require_relative "../figure"
require_relative "../stats"

module DeckhandBench
  module Scenarios
    # Scenario 3: an idle server (10 threads) gets jobs one at a time, each
    # carrying the time it was pushed; the job reports when it started. The
    # next push waits for that report and a short pause, so every job
    # arrives at an idle server, as a web request's job usually does.
    class PushLatency < Scenario
      THREADS = 10
      WARMUP = 20
      PAUSE = 0.002

      def title = "Push-to-start latency on an idle server (#{plan.latency_jobs} jobs, one at a time)"

      def figures
        [
          Figure.new(key: :push_p50, label: "3. Push-to-start latency p50", unit: "ms", digits: 2,
            target: "<= 1 ms", check: ->(r) { r.median(:push_p50)&.<=(1.0) }),
          Figure.new(key: :push_p99, label: "3. Push-to-start latency p99", unit: "ms", digits: 2,
            target: "<= 5 ms", check: ->(r) { r.median(:push_p99)&.<=(5.0) }),
          Figure.new(key: :push_max, label: "3. Push-to-start latency max", unit: "ms", digits: 2)
        ]
      end

      def measure(system, _round)
        lab.fresh!
        child = lab.server(system, system.server(threads: THREADS, queues: ["bench"]), expect: 0)
        one(system, child, 0, timeout: 60) # also waits out the server's boot
        (1...WARMUP).each { |i| one(system, child, i) }
        samples = Array.new(plan.latency_jobs) { |i| one(system, child, WARMUP + i) }
        p50, p99 = [50, 99].map { |p| Stats.percentile(samples, p) }
        results.add(:push_p50, system.name, p50)
        results.add(:push_p99, system.name, p99)
        results.add(:push_max, system.name, samples.max)
        say("#{system.name}: p50 #{p50.round(2)} ms, p99 #{p99.round(2)} ms, max #{samples.max.round(2)} ms")
      ensure
        child&.stop
      end

      private

      # Pushes one job and returns its push-to-start latency in milliseconds.
      def one(system, child, number, timeout: 10)
        sleep PAUSE
        args = Probe.args(number, "pushed_at" => realtime)
        system.push(client(system), "BenchLatencyJob", "bench", args)
        child.wait_report(lab.redis, Probe::LATENCY, timeout: timeout).to_i / 1000.0
      end
    end
  end
end
