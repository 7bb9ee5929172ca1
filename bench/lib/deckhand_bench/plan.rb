# frozen_string_literal: true

module DeckhandBench
  # How much work each scenario does and how many rounds it runs. The full
  # plan is the suite the published figures come from; the quick one is a
  # smoke run for CI that finishes within about a minute.
  #
  #   plan = DeckhandBench::Plan.full(rounds: 5)
  #   plan.noop_jobs      # => 100000
  #   DeckhandBench::Plan.quick.rounds # => 1
  Plan = Struct.new(
    :name,
    :rounds,
    :noop_jobs,         # scenario 1: pushed in bulk, then drained
    :thread_counts,     # scenario 1: one server process with each
    :proxy_jobs,        # scenario 2: added round trip (seconds) => jobs; 0 shows the proxy's own cost
    :latency_jobs,      # scenario 3: pushed one at a time on an idle server
    :enqueue_single,    # scenario 6: perform_async one by one
    :enqueue_bulk,      # scenario 6: perform_bulk, 1,000 per call
    :mixed_jobs,        # scenario 7: jobs of each kind (no-op, CPU, I/O)
    :cluster_jobs,      # scenario 8: no-op jobs over six queues, plain Redis and clusters of 1 and 3 primaries
    :partition_jobs,    # scenario 9: no-op jobs in one queue on 3 primaries, whole and in 6 partitions
    keyword_init: true
  ) do
    def self.full(rounds: 3)
      new(name: "full", rounds: rounds, noop_jobs: 100_000, thread_counts: [10, 25],
        proxy_jobs: {0.0 => 50_000, 0.001 => 100_000, 0.010 => 20_000}, latency_jobs: 2_000,
        enqueue_single: 10_000, enqueue_bulk: 100_000, mixed_jobs: 10_000, cluster_jobs: 60_000, partition_jobs: 240_000)
    end

    def self.quick(rounds: 1)
      new(name: "quick", rounds: rounds, noop_jobs: 5_000, thread_counts: [10],
        proxy_jobs: {0.001 => 2_000, 0.010 => 500}, latency_jobs: 200,
        enqueue_single: 1_000, enqueue_bulk: 10_000, mixed_jobs: 200, cluster_jobs: 3_000, partition_jobs: 3_000)
    end

    def quick? = name == "quick"

    def describe
      proxied = proxy_jobs.map { |delay, count| "+#{Kernel.format("%g", delay * 1000)} ms: #{count}" }.join(", ")
      "no-op #{noop_jobs} jobs at #{thread_counts.join(" and ")} threads; added latency #{proxied} jobs; " \
        "#{latency_jobs} push-to-start jobs; enqueue #{enqueue_single} + #{enqueue_bulk}; mixed 3 x #{mixed_jobs}; " \
        "cluster #{cluster_jobs} over 6 queues; one queue of #{partition_jobs} whole and in 6 partitions"
    end
  end
end
