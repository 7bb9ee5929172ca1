# frozen_string_literal: true

require_relative "scenario"
require_relative "../figure"
require_relative "../redis_meter"
require_relative "../shard_meter"
require_relative "../../../../lib/deckhand/dev_redis/local_cluster"

module DeckhandBench
  module Scenarios
    # Scenario 8, Deckhand alone (Sidekiq cannot run on a Redis Cluster):
    # no-op jobs in six queues, pushed before one server process starts with
    # a capsule per queue, drained against one plain Redis, then against a
    # Redis Cluster of 1 and of 3 primaries (no replicas), in the same run.
    # Per shard: the jobs its queues held and the Redis CPU it spent per job
    # (INFO cpu, INFO commandstats on each primary). The fleet's ceiling is
    # where the busiest shard runs out of its one core.
    class Cluster < Scenario
      QUEUES = %w[default mail reports critical low bulk].freeze
      THREADS = 2 # per capsule
      SHARDS = [1, 3].freeze
      PROJECTED = [1, 3, 6, 10].freeze
      # The queues recorded where their names hash (4, 1 and 1 on three
      # primaries), drained as they are, then after `deckhand placement
      # rebalance` moved them with their jobs (API::QueueMoves).
      LUMPY = {hashed: "queues where their names hash", rebalanced: "the same after a rebalance"}.freeze

      def title = "Cluster mode: no-op throughput and Redis CPU per shard (#{plan.cluster_jobs} jobs, #{QUEUES.size} queues)"

      def figures
        [
          rate_figure(:cluster_plain, "one plain Redis"), *SHARDS.map { |n| rate_figure(:"cluster_#{n}", primaries(n)) },
          cpu_figure(:cluster_cpu_plain, "one plain Redis"), *SHARDS.map { |n| cpu_figure(:"cluster_cpu_#{n}", "#{primaries(n)}, all shards") },
          Figure.new(key: :cluster_busiest_3, label: "8. Cluster: busiest shard's share of the jobs, 3 primaries", unit: "%", digits: 0),
          *LUMPY.map { |step, what| Figure.new(key: :"cluster_busiest_3_#{step}", label: "8. Cluster: busiest shard's share of the jobs, 3 primaries, #{what}", unit: "%", digits: 0) },
          ceiling_figure(:cluster_ceiling_plain, "one plain Redis"),
          *SHARDS.map { |n| ceiling_figure(:"cluster_ceiling_#{n}", "#{primaries(n)} (busiest shard's core)") }
        ]
      end

      def run
        figures.each { |figure| results.declare(figure) }
        deckhand = systems.find { |system| system.name == "deckhand" }
        (1..plan.rounds).each do |round|
          measure_plain(deckhand)
          SHARDS.each { |count| measure_cluster(deckhand, count, round) }
          LUMPY.each_key { |step| measure_cluster(deckhand, 3, round, step) }
        end
        project
      end

      private

      def primaries(count) = "#{count} primar#{(count == 1) ? "y" : "ies"}"

      def rate_figure(key, what) = Figure.new(key: key, label: "8. Cluster: no-op throughput, #{what}", unit: "jobs/s", digits: 0)

      def cpu_figure(key, what) = Figure.new(key: key, label: "8. Cluster: Redis CPU per job, #{what}", unit: "µs", digits: 2)

      def ceiling_figure(key, what) = Figure.new(key: key, label: "8. Cluster: jobs/s Redis could feed, #{what}", unit: "jobs/s", digits: 0)

      def per_queue = plan.cluster_jobs / QUEUES.size

      def total = per_queue * QUEUES.size

      def server(system) = system.capsule_server(threads: THREADS, queues: QUEUES)

      def measure_plain(system)
        lab.fresh!
        QUEUES.each { |queue| push_bulk(system, "BenchNoopJob", queue, per_queue) }
        meter = RedisMeter.new(lab.redis).start
        child = lab.server(system, server(system), expect: total)
        report = JSON.parse(child.wait_report(lab.redis, Probe::FINISHED, timeout: timeout))
        cost = meter.finish(jobs: total, extra: {"rpush" => 1})
        results.add(:cluster_plain, system.name, rate(report))
        results.add(:cluster_cpu_plain, system.name, cost.cpu_us_per_job)
        results.add(:cluster_ceiling_plain, system.name, cost.ceiling)
        say("one plain Redis: #{rate(report).round} jobs/s, #{cost.cpu_us_per_job.round(2)} µs Redis CPU/job")
      ensure
        child&.stop
      end

      # lumpy: nil, or a LUMPY step (3 primaries, recorded apart).
      def measure_cluster(system, count, round, lumpy = nil)
        lab.fresh!
        cluster = Deckhand::DevRedis::LocalCluster.start(dir: File.join(lab.dir, "cluster-#{count}-#{round}#{lumpy}"), primaries: count, replicas: 0)
        config = Deckhand::Config.new(redis: {cluster: cluster.urls})
        client = Deckhand::Client.new(config: config)
        config.store.call("HSET", Deckhand::Store::Layout::Cluster::PLACEMENT, *QUEUES.flat_map { |q| [q, "{queue:#{q}}"] }) if lumpy
        QUEUES.each { |queue| system.push_bulk(client, "BenchNoopJob", queue, Array.new(per_queue) { |i| Probe.args(i) }) }
        rebalance(config) if lumpy == :rebalanced
        jobs = jobs_by_port(cluster, config.store.layout)
        meter = ShardMeter.new(cluster.primaries).start
        child = lab.server(system, [*server(system), "-C", config_file(cluster, count)], expect: total, redis_url: cluster.urls.join(","))
        report = JSON.parse(child.wait_report(lab.redis, Probe::FINISHED, timeout: timeout))
        return record_lumpy(system, lumpy, meter.finish(jobs)) if lumpy
        record(system, count, report, meter.finish(jobs))
      ensure
        child&.stop
        cluster&.stop
      end

      # Cluster mode in a config file: REDIS_URL with one node means a plain Redis.
      def config_file(cluster, count)
        File.join(lab.dir, "cluster-#{count}.yml").tap do |path|
          File.write(path, "redis:\n  cluster: [#{cluster.urls.map { |url| "\"#{url}\"" }.join(", ")}]\n")
        end
      end

      # Jobs per primary (by port): each queue's jobs on the primary of its
      # slot, where its placement put it.
      def jobs_by_port(cluster, keys)
        QUEUES.group_by { |queue| cluster.primary_for(keys.queue(queue)).port }
          .transform_values { |queues| queues.size * per_queue }
      end

      def record(system, count, report, shards)
        cpu = shards.sum { |shard| shard.cost.cpu_seconds }
        busiest = shards.max_by { |shard| shard.cost.cpu_seconds }
        results.add(:"cluster_#{count}", system.name, rate(report))
        results.add(:"cluster_cpu_#{count}", system.name, cpu * 1_000_000 / total)
        results.add(:"cluster_ceiling_#{count}", system.name, total / busiest.cost.cpu_seconds)
        results.add(:cluster_busiest_3, system.name, 100.0 * shards.map(&:jobs).max / total) if count == 3
        lines = shards.map { |s| shard_line(s) }
        results.note(:"cluster_shards_#{count}", "Cluster of #{primaries(count)}, per shard: #{lines.join("; ")}")
        say("#{primaries(count)}: #{rate(report).round} jobs/s, #{(cpu * 1_000_000 / total).round(2)} µs Redis CPU/job " \
          "over all shards (load #{load_average})")
        lines.each { |line| say("  #{line}") }
      end

      def rebalance(config)
        require_relative "../../../../lib/deckhand/api"
        started = ::Process.clock_gettime(::Process::CLOCK_MONOTONIC)
        moved = Deckhand::API.new(config).queue_moves.rebalance
        seconds = ::Process.clock_gettime(::Process::CLOCK_MONOTONIC) - started
        say("rebalanced: #{moved.map { |m| "#{m.queue} (#{m.jobs} jobs, #{m.seconds} s)" }.join(", ")} in #{seconds.round(1)} s")
      end

      def record_lumpy(system, step, shards)
        share = 100.0 * shards.map(&:jobs).max / total
        results.add(:"cluster_busiest_3_#{step}", system.name, share)
        say("3 primaries, #{LUMPY[step]}: busiest shard #{share.round}% (#{shards.map(&:jobs).join("/")} jobs)")
      end

      def shard_line(shard)
        top = shard.top.map { |name, calls, usec| "#{name} #{calls.round(3)}/#{usec.round(2)} µs" }.join(", ")
        "port #{shard.port}: #{shard.jobs} jobs (#{(100.0 * shard.jobs / total).round}%), " \
          "#{shard.cost.cpu_seconds.round(3)} s CPU#{", #{shard.cpu_us_per_job.round(2)} µs/job" if shard.jobs.positive?}#{" (#{top})" unless top.empty?}"
      end

      # With queues spread evenly, N shards feed N times what one shard's
      # cost per job allows (the median over the rounds so far of the
      # 3-primary run, like the table's figure).
      def project
        us = results.median(:cluster_cpu_3) || results.median(:cluster_cpu_1) or return
        per_job = us / 1_000_000
        ceilings = PROJECTED.map { |n| "#{n} shard#{"s" unless n == 1}: #{(n / per_job).round.to_s.gsub(/\B(?=(\d{3})+\z)/, ",")}" }
        results.note(:cluster_projection, "Cluster: projected fleet ceiling with queues spread evenly, jobs/s " \
          "(#{(per_job * 1_000_000).round(2)} µs Redis CPU per job, one core per shard): #{ceilings.join(", ")}")
        say("projected fleet ceiling (even spread): #{ceilings.join(", ")} jobs/s")
      end

      def timeout = 30 + total * 0.002

      def load_average = File.read("/proc/loadavg").split.first
    end
  end
end
