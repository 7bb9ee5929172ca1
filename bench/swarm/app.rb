# frozen_string_literal: true

# The application the swarm benchmarks boot with `deckhand -P N -r`: a no-op
# job, and (with SWARM_BENCH_BOOT_MB set) about that many megabytes of data
# built at boot, the way a large app's code, constants and caches are.

require "deckhand"

module SwarmBench
  # ~100 bytes of String per entry plus its object slot: 100 MB is about
  # 700,000 entries, held for the life of the process.
  megabytes = Integer(ENV.fetch("SWARM_BENCH_BOOT_MB", "0"))
  DATA = Array.new(megabytes * 7_000) { |i| "#{i}:" + ("x" * 96) }.freeze

  class NoopJob
    include Deckhand::Job

    def perform(_n)
    end
  end
end
