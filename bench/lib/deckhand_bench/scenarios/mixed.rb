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
    class Mixed < Scenario
      THREADS = 100
      KINDS = {"noop" => "BenchNoopJob", "cpu" => "BenchCpuJob", "io" => "BenchIoJob"}.freeze

      def title = "Mixed workload (#{plan.mixed_jobs} each of no-op, CPU-bound, I/O-bound)"

      def figures
        [Figure.new(key: :mixed, label: "7. Mixed workload, wall time to drain", unit: "s", digits: 2,
          target: "<= 0.6x Sidekiq's", check: ->(r) { r.ratio(:mixed)&.<=(0.6) })]
      end

      def measure(system, _round)
        count = plan.mixed_jobs
        lab.fresh!
        KINDS.each { |queue, klass| push_bulk(system, klass, queue, count) }
        child = lab.server(system, system.mixed_server(threads: THREADS), expect: count * KINDS.size)
        report = wait(child, system, queues: KINDS.keys, timeout: 120 + count * 0.01)
        results.add(:mixed, system.name, report["seconds"])
        results.note(:"mixed_#{system.name}", "Mixed workload, #{system.label}: #{system.mixed_setup(threads: THREADS)}")
        say("#{system.name}: #{report["jobs"]} jobs drained in #{report["seconds"].round(2)} s")
      ensure
        child&.stop
      end
    end
  end
end
