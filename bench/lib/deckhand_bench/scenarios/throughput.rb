# frozen_string_literal: true

require_relative "scenario"
require_relative "../figure"
require_relative "../redis_meter"

module DeckhandBench
  module Scenarios
    # Scenarios 1, 4 and 5: no-op jobs pushed in bulk before one server
    # process starts, timed from the first job done to the last. The
    # 10-thread run also gives objects allocated per job and RSS (from the
    # server's probe), and what each job cost Redis (RedisMeter).
    class Throughput < Scenario
      def title = "No-op throughput, allocations and Redis cost (#{plan.noop_jobs} jobs)"

      def each_setting(&) = plan.thread_counts.each { |threads| yield [threads] }

      def figures
        rates = plan.thread_counts.map do |threads|
          target = (threads == 10) ? ">= 2x Sidekiq" : nil
          Figure.new(key: :"noop_#{threads}", label: "1. No-op throughput, #{threads} threads", unit: "jobs/s",
            digits: 0, target: target, check: target && ->(r) { r.ratio(:noop_10)&.>=(2) })
        end
        rates + [
          Figure.new(key: :allocated, label: "4. Objects allocated per job", unit: "objects", digits: 1,
            target: "<= 1/2 of Sidekiq's", check: ->(r) { r.ratio(:allocated)&.<=(0.5) }),
          Figure.new(key: :rss, label: "4. Server RSS at the end", unit: "MB", digits: 1),
          Figure.new(key: :commands, label: "5. Redis commands per job (incl. inside Lua)", unit: nil, digits: 3,
            target: "<= 0.3", check: ->(r) { r.median(:commands)&.<=(0.3) }),
          Figure.new(key: :round_trips, label: "5. Round trips to Redis per job (client side)", unit: nil, digits: 3),
          Figure.new(key: :redis_cpu, label: "5. Redis CPU per job", unit: "µs", digits: 2),
          Figure.new(key: :ceiling, label: "5. Jobs/s one Redis core could feed", unit: "jobs/s", digits: 0,
            target: "> 1,000,000", check: ->(r) { r.median(:ceiling)&.>(1_000_000) })
        ]
      end

      def measure(system, _round, threads)
        count = plan.noop_jobs
        lab.fresh!
        push_bulk(system, "BenchNoopJob", "bench", count)
        meter = RedisMeter.new(lab.redis).start
        child = lab.server(system, system.server(threads: threads, queues: ["bench"]), expect: count)
        report = wait(child, system, queues: ["bench"], timeout: 60 + count * 0.002)
        cost = meter.finish(jobs: count, extra: {"rpush" => 1})
        results.add(:"noop_#{threads}", system.name, rate(report))
        say("#{system.name}, #{threads} threads: #{format_rate(report)}")
        record_costs(system, report, cost) if threads == 10
      ensure
        child&.stop
      end

      private

      def record_costs(system, report, cost)
        results.add(:allocated, system.name, report["allocated"].fdiv(report["jobs"]))
        results.add(:rss, system.name, report["rss_kb"] / 1024.0)
        results.add(:commands, system.name, cost.commands_per_job)
        results.add(:round_trips, system.name, report["round_trips"].fdiv(report["jobs"]))
        results.add(:redis_cpu, system.name, cost.cpu_us_per_job)
        results.add(:ceiling, system.name, cost.ceiling)
        top = cost.top.map { |name, calls, usec| "#{name} #{calls.round(4)} calls/#{usec.round(2)} µs" }.join(", ")
        say("  #{report["allocated"].fdiv(report["jobs"]).round(1)} objects/job, " \
          "#{cost.commands_per_job.round(3)} commands/job, #{cost.cpu_us_per_job.round(2)} µs Redis CPU/job")
        results.note(:"commands_#{system.name}", "#{system.label}, 10 threads, per job, by Redis time: #{top}")
      end

      def format_rate(report)
        "#{report["jobs"]} jobs in #{report["seconds"].round(2)} s = #{rate(report).round} jobs/s"
      end
    end
  end
end
