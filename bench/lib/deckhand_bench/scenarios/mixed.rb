# frozen_string_literal: true

require_relative "scenario"
require_relative "../figure"
require_relative "../io_memory"

module DeckhandBench
  module Scenarios
    # Scenario 7: no-op, CPU-bound (a prime sieve) and I/O-bound (a 50 ms
    # sleep) jobs in three queues, drained by one server process: Sidekiq's
    # single pool against Deckhand's capsules. Both get the same number of
    # threads for I/O; Deckhand adds small pools for the other two queues.
    # 100 is Sidekiq's best concurrency here of 50, 100 and 200 (10.8, 8.2
    # and 8.2 s at 10,000 jobs of each kind, YJIT, 2 shared cores).
    class Mixed < Scenario
      THREADS = 100
      KINDS = {"noop" => "BenchNoopJob", "cpu" => "BenchCpuJob", "io" => "BenchIoJob"}.freeze

      def title = "Mixed workload (#{plan.mixed_jobs} each of no-op, CPU-bound, I/O-bound)"

      def figures
        [Figure.new(key: :mixed, label: "7. Mixed workload, wall time to drain", unit: "s", digits: 2,
          target: "<= 0.6x Sidekiq's", check: ->(r) { r.ratio(:mixed)&.<=(0.6) }),
          # Sidekiq's column is its single pool, measured once for both rows.
          Figure.new(key: :mixed_fibers, label: "7. Mixed workload, Deckhand with a fiber capsule of 1,000 for the I/O queue",
            unit: "s", digits: 2, target: "<= 0.3x Sidekiq's", check: ->(r) { r.ratio(:mixed_fibers)&.<=(0.3) }),
          Figure.new(key: :io_only, label: "7. I/O-bound jobs alone, wall time to drain (Deckhand: fiber capsule of 1,000)",
            unit: "s", digits: 2, target: "<= 0.3x Sidekiq's", check: ->(r) { r.ratio(:io_only)&.<=(0.3) }),
          Figure.new(key: :io_memory_threads, label: "7. Memory per concurrent I/O job, Deckhand capsule of threads", unit: "KB", digits: 0),
          Figure.new(key: :io_memory_fibers, label: "7. Memory per concurrent I/O job, Deckhand capsule of fibers", unit: "KB", digits: 0)]
      end

      def measure(system, round)
        count = plan.mixed_jobs
        lab.fresh!
        KINDS.each { |queue, klass| push_bulk(system, klass, queue, count) }
        child = lab.server(system, system.mixed_server(threads: THREADS), expect: count * KINDS.size)
        report = wait(child, system, queues: KINDS.keys, timeout: 120 + count * 0.01)
        results.add(:mixed, system.name, report["seconds"])
        results.note(:"mixed_#{system.name}", "Mixed workload, #{system.label}: #{system.mixed_setup(threads: THREADS)}")
        say("#{system.name}: #{report["jobs"]} jobs drained in #{report["seconds"].round(2)} s")
        child.stop
        child = nil
        results.add(:mixed_fibers, system.name, report["seconds"]) unless system.respond_to?(:fiber_mixed_server)
        measure_io_only(system)
        return unless system.respond_to?(:fiber_mixed_server)
        measure_fibers(system)
        measure_memory(system) if round == 1
      ensure
        child&.stop
      end

      private

      # The I/O-bound queue's jobs alone: Sidekiq's pool, Deckhand's fiber capsule.
      def measure_io_only(system)
        count = plan.mixed_jobs
        lab.fresh!
        push_bulk(system, KINDS["io"], "io", count)
        argv = system.respond_to?(:fiber_mixed_server) ? system.fiber_mixed_server : system.mixed_server(threads: THREADS)
        child = lab.server(system, argv, expect: count)
        report = wait(child, system, queues: ["io"], timeout: 120 + count * 0.01)
        results.add(:io_only, system.name, report["seconds"])
        say("#{system.name}: #{report["jobs"]} I/O-bound jobs alone drained in #{report["seconds"].round(2)} s")
      ensure
        child&.stop
      end

      # Once: what a concurrent I/O job costs, on threads and on fibers (IoMemory).
      def measure_memory(system)
        push = ->(n, hold) { system.push_bulk(client(system), "BenchHoldJob", "io", Array.new(n) { |i| Probe.args(i, "hold" => hold) }) }
        memory = IoMemory.new(lab: lab, system: system, push: push)
        %i[threads fibers].each { |kind| results.add(:"io_memory_#{kind}", system.name, memory.per_job(kind)) }
        results.note(:io_memory, "Memory per concurrent I/O job: peak RSS of #{IoMemory::LARGE} jobs waiting at once less " \
          "that of #{IoMemory::SMALL}, over #{IoMemory::LARGE - IoMemory::SMALL}; peaks at #{IoMemory::LARGE}: " \
          "threads #{memory.peaks[:threads] / 1024} MB, fibers #{memory.peaks[:fibers] / 1024} MB")
        say("memory per concurrent I/O job: threads #{results.median(:io_memory_threads).round} KB, fibers #{results.median(:io_memory_fibers).round} KB")
      end

      def measure_fibers(system)
        count = plan.mixed_jobs
        lab.fresh!
        KINDS.each { |queue, klass| push_bulk(system, klass, queue, count) }
        child = lab.server(system, system.fiber_mixed_server, expect: count * KINDS.size)
        report = wait(child, system, queues: KINDS.keys, timeout: 120 + count * 0.01)
        results.add(:mixed_fibers, system.name, report["seconds"])
        results.note(:mixed_fibers, "Mixed workload, #{system.label} with fibers: #{system.fiber_mixed_setup}")
        say("#{system.name} (fiber capsule): #{report["jobs"]} jobs drained in #{report["seconds"].round(2)} s")
      ensure
        child&.stop
      end
    end
  end
end
