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
    # The CPU-bound jobs alone are measured too: under Ruby's global lock
    # their time is the least the whole workload can take in one process.
    # 100 is Sidekiq's best concurrency here of 50, 100 and 200 (10.8, 8.2
    # and 8.2 s at 10,000 jobs of each kind, YJIT, 2 shared cores).
    #
    # A second Deckhand row runs one auto-balanced pool of the same 100
    # threads over the three queues, with no capsule configuration
    # (auto_balance: true, docs/auto-balance.md), against the hand-tuned
    # capsules; its Sidekiq column repeats Sidekiq's single pool.
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
          Figure.new(key: :cpu_only, label: "7. CPU-bound jobs alone, wall time to drain (the mixed workload's floor in one process)",
            unit: "s", digits: 2),
          Figure.new(key: :io_only, label: "7. I/O-bound jobs alone, wall time to drain (Deckhand: fiber capsule of 1,000)",
            unit: "s", digits: 2, target: "<= 0.3x Sidekiq's", check: ->(r) { r.ratio(:io_only)&.<=(0.3) }),
          Figure.new(key: :io_memory_threads, label: "7. Memory per concurrent I/O job, Deckhand capsule of threads", unit: "KB", digits: 0),
          Figure.new(key: :io_memory_fibers, label: "7. Memory per concurrent I/O job, Deckhand capsule of fibers", unit: "KB", digits: 0),
          Figure.new(key: :mixed_auto, label: "7. Mixed workload, Deckhand, one auto-balanced pool, no capsule configuration",
            unit: "s", digits: 2, target: "<= 1.1x the capsules'",
            check: ->(r) { (auto = r.median(:mixed_auto)) && (tuned = r.median(:mixed)) && auto <= 1.1 * tuned })]
      end

      def measure(system, round)
        seconds = drain(system, system.mixed_server(threads: THREADS), "")
        results.add(:mixed, system.name, seconds)
        results.note(:"mixed_#{system.name}", "Mixed workload, #{system.label}: #{system.mixed_setup(threads: THREADS)}")
        measure_alone(system, "io", :io_only, system.respond_to?(:fiber_mixed_server) ? system.fiber_mixed_server : system.mixed_server(threads: THREADS))
        measure_alone(system, "cpu", :cpu_only, system.mixed_server(threads: THREADS))
        unless system.respond_to?(:fiber_mixed_server)
          results.add(:mixed_fibers, system.name, seconds)
          return results.add(:mixed_auto, system.name, seconds)
        end
        results.add(:mixed_fibers, system.name, drain(system, system.fiber_mixed_server, " (fiber capsule)"))
        results.note(:mixed_fibers, "Mixed workload, #{system.label} with fibers: #{system.fiber_mixed_setup}")
        results.add(:mixed_auto, system.name, drain(system, system.mixed_auto_server(threads: THREADS), " auto-balanced"))
        results.note(:"mixed_auto_#{system.name}", "Mixed workload, #{system.label}: #{system.mixed_auto_setup(threads: THREADS)}")
        measure_memory(system) if round == 1
      end

      private

      # Every queue's jobs pushed ahead, drained by one server started with `argv`.
      def drain(system, argv, how)
        count = plan.mixed_jobs
        lab.fresh!
        KINDS.each { |queue, klass| push_bulk(system, klass, queue, count) }
        child = lab.server(system, argv, expect: count * KINDS.size)
        report = wait(child, system, queues: KINDS.keys, timeout: 120 + count * 0.01)
        say("#{system.name}#{how}: #{report["jobs"]} jobs drained in #{report["seconds"].round(2)} s")
        report["seconds"]
      ensure
        child&.stop
      end

      # One queue's jobs alone, drained by a server started with `argv`: the
      # I/O-bound ones (Sidekiq's pool, Deckhand's fiber capsule) and the
      # CPU-bound ones, whose time no concurrency in one process can shorten
      # under the global lock, so the whole workload cannot drain faster.
      def measure_alone(system, queue, key, argv)
        count = plan.mixed_jobs
        lab.fresh!
        push_bulk(system, KINDS[queue], queue, count)
        child = lab.server(system, argv, expect: count)
        report = wait(child, system, queues: [queue], timeout: 120 + count * 0.01)
        results.add(key, system.name, report["seconds"])
        say("#{system.name}: #{report["jobs"]} #{(queue == "io") ? "I/O" : "CPU"}-bound jobs alone drained in #{report["seconds"].round(2)} s")
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
    end
  end
end
