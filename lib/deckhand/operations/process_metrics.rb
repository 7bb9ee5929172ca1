# frozen_string_literal: true

require_relative "exposition"
require_relative "memory_families"

module Deckhand
  module Operations
    # The /metrics page of one server process (metrics_port): its registry's
    # counters and histograms, gauges of the process itself, and what its
    # eviction watch saw of each Redis primary at its last look (the policy,
    # memory used, keys evicted, and how many warnings hold). The fleet's
    # gauges (queues, sets) are on `deckhand web`'s /metrics, so scraping
    # every process does not count them once per process.
    #
    #   ProcessMetrics.new(launcher, registry).respond("/metrics")   # => [200, "text/plain; version=0.0.4; ...", "..."]
    class ProcessMetrics
      def initialize(launcher, registry)
        @launcher = launcher
        @registry = registry
      end

      def respond(path)
        return [404, "text/plain", "not found: try /metrics\n"] unless path == "/metrics"
        [200, Exposition::CONTENT_TYPE, render]
      end

      def render
        out = Exposition.new
        @registry.write(out)
        gauge(out, "deckhand_process_busy_threads", "Threads of this process running a job", @launcher.stats.busy)
        gauge(out, "deckhand_process_concurrency", "Threads of this process", @launcher.config.total_concurrency)
        gauge(out, "deckhand_process_quiet", "1 once this process is quiet (TSTP) or stopping", @launcher.quiet? ? 1 : 0)
        gauge(out, "deckhand_process_redis_roundtrip_seconds", "Time the last heartbeat's round trip to Redis took", @launcher.heartbeat.rtt_us / 1_000_000.0)
        gauge(out, "deckhand_process_resident_memory_bytes", "Resident memory of this process", (@launcher.rss_kb || 0) * 1024)
        offset = @launcher.config.store.clock.offset
        if offset
          gauge(out, "deckhand_process_clock_offset_seconds", "How far Redis' clock is ahead of this host's (negative: behind), " \
            "as the last heartbeat measured it; Deckhand times its jobs by Redis' clock", offset.round(4))
        end
        redis_memory(out, @launcher.eviction_watch.look)
        out.to_s
      end

      private

      def redis_memory(out, look)
        gauge(out, "deckhand_redis_eviction_warnings", "Warnings about Redis' memory at the last look: a maxmemory-policy " \
          "that may evict Deckhand's keys, memory at 90% of maxmemory or more, keys evicted since the look before", look.concerns.size)
        MemoryFamilies.write(out, look.nodes)
      end

      def gauge(out, name, help, value)
        out.family(name, :gauge, help)
        out.sample(name, {}, value)
      end
    end
  end
end
