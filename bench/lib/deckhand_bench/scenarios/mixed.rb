# frozen_string_literal: true

require_relative "scenario"
require_relative "../figure"

module DeckhandBench
  module Scenarios
    # Scenario 7: no-op, CPU-bound (a prime sieve) and I/O-bound (a 50 ms
    # sleep) jobs in three queues, drained by one server process: Sidekiq's
    # single pool against Deckhand's capsules. Both get the same number of
    # threads for I/O; Deckhand adds small pools for the other two queues.
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
          Figure.new(key: :mixed_auto, label: "7. Mixed workload, Deckhand, one auto-balanced pool, no capsule configuration",
            unit: "s", digits: 2, target: "<= 1.1x the capsules'",
            check: ->(r) { (auto = r.median(:mixed_auto)) && (tuned = r.median(:mixed)) && auto <= 1.1 * tuned })]
      end

      def measure(system, _round)
        seconds = drain(system, system.mixed_server(threads: THREADS), "")
        results.add(:mixed, system.name, seconds)
        results.note(:"mixed_#{system.name}", "Mixed workload, #{system.label}: #{system.mixed_setup(threads: THREADS)}")
        return results.add(:mixed_auto, system.name, seconds) unless system.respond_to?(:mixed_auto_server)
        results.add(:mixed_auto, system.name, drain(system, system.mixed_auto_server(threads: THREADS), " auto-balanced"))
        results.note(:"mixed_auto_#{system.name}", "Mixed workload, #{system.label}: #{system.mixed_auto_setup(threads: THREADS)}")
      end

      private

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
    end
  end
end
