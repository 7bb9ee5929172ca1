# frozen_string_literal: true

require_relative "cluster"

module DeckhandBench
  module Scenarios
    # Scenario 9, Deckhand alone: one hot queue on a Redis Cluster of 3
    # primaries, unpartitioned (one slot, one primary) and then with
    # `partitions: {"default" => 6}` (six lists, placed two by two on the
    # primaries), the same no-op jobs drained by one server process with one
    # capsule working the queue. Figures: jobs/s, Redis CPU per job over all
    # shards, the busiest shard's share of the jobs and the jobs/s where its
    # core runs out; the notes project the ceiling on 1, 3, 6 and 10
    # primaries.
    class Partitioned < Cluster
      QUEUE = "default"
      PARTITIONS = 6
      THREADS = 12
      KINDS = {whole: "one list", split: "#{PARTITIONS} partitions"}.freeze
      PROJECTED = [1, 3, 6, 10].freeze # primaries

      def title = "Partitioned queue: one hot queue on 3 primaries, whole and in #{PARTITIONS} partitions (#{plan.partition_jobs} jobs)"

      def figures
        KINDS.flat_map do |kind, what|
          [
            Figure.new(key: :"partitions_rate_#{kind}", label: "9. Partitions: no-op throughput, #{what}", unit: "jobs/s", digits: 0),
            Figure.new(key: :"partitions_cpu_#{kind}", label: "9. Partitions: Redis CPU per job, #{what}, all shards", unit: "µs", digits: 2),
            Figure.new(key: :"partitions_busiest_#{kind}", label: "9. Partitions: busiest shard's share of the jobs, #{what}", unit: "%", digits: 0),
            Figure.new(key: :"partitions_ceiling_#{kind}", label: "9. Partitions: jobs/s Redis could feed, #{what} (busiest shard's core)", unit: "jobs/s", digits: 0)
          ]
        end
      end

      def run
        figures.each { |figure| results.declare(figure) }
        deckhand = systems.find { |system| system.name == "deckhand" }
        (1..plan.rounds).each do |round|
          KINDS.each_key { |kind| measure_queue(deckhand, kind, round) }
        end
        project_partitions
      end

      private

      def total = plan.partition_jobs

      def partitions(kind) = (kind == :split) ? {QUEUE => PARTITIONS} : {}

      def measure_queue(system, kind, round)
        lab.fresh!
        cluster = Deckhand::DevRedis::LocalCluster.start(dir: File.join(lab.dir, "partitions-#{kind}-#{round}"), primaries: 3, replicas: 0)
        config = Deckhand::Config.new(redis: {cluster: cluster.urls}, partitions: partitions(kind))
        system.push_bulk(Deckhand::Client.new(config: config), "BenchNoopJob", QUEUE, Array.new(total) { |i| Probe.args(i) })
        jobs = jobs_per_port(cluster, config)
        meter = ShardMeter.new(cluster.primaries).start
        command = [*system.capsule_server(threads: THREADS, queues: [QUEUE]), "-C", partition_config(cluster, kind)]
        child = lab.server(system, command, expect: total, redis_url: cluster.urls.join(","))
        report = JSON.parse(child.wait_report(lab.redis, Probe::FINISHED, timeout: timeout))
        record_queue(system, kind, report, meter.finish(jobs))
      ensure
        child&.stop
        cluster&.stop
      end

      def partition_config(cluster, kind)
        File.join(lab.dir, "partitions-#{kind}.yml").tap do |path|
          nodes = cluster.urls.map { |url| "\"#{url}\"" }.join(", ")
          File.write(path, "redis:\n  cluster: [#{nodes}]\n#{"partitions:\n  #{QUEUE}: #{PARTITIONS}\n" if kind == :split}")
        end
      end

      # Jobs per primary (by port), read from the lists themselves.
      def jobs_per_port(cluster, config)
        keys = config.store.layout
        config.partitions.names(QUEUE).each_with_object(Hash.new(0)) do |list, ports|
          ports[cluster.primary_for(keys.queue(list)).port] += config.store.call("LLEN", keys.queue(list))
        end
      end

      def record_queue(system, kind, report, shards)
        cpu = shards.sum { |shard| shard.cost.cpu_seconds }
        busiest = shards.max_by(&:jobs)
        results.add(:"partitions_rate_#{kind}", system.name, rate(report))
        results.add(:"partitions_cpu_#{kind}", system.name, cpu * 1_000_000 / total)
        results.add(:"partitions_busiest_#{kind}", system.name, 100.0 * busiest.jobs / total)
        results.add(:"partitions_ceiling_#{kind}", system.name, total / busiest.cost.cpu_seconds)
        lines = shards.map { |s| shard_line(s) }
        results.note(:"partitions_shards_#{kind}", "Partitions, #{KINDS[kind]}, per shard: #{lines.join("; ")}")
        say("#{KINDS[kind]}: #{rate(report).round} jobs/s, #{(cpu * 1_000_000 / total).round(2)} µs Redis CPU/job " \
          "over all shards (load #{load_average})")
        lines.each { |line| say("  #{line}") }
      end

      # A queue in P partitions spread evenly feeds min(N, P) cores of N
      # primaries; one list, one core, however many primaries. Each
      # projection assumes the 6 partitions measured, or as many partitions
      # as primaries where there are more (6 partitions stop at 6 cores), at
      # the CPU per job measured with 6.
      def project_partitions
        us = results.median(:partitions_cpu_split) or return
        whole = results.median(:partitions_cpu_whole)
        ceilings = PROJECTED.map do |n|
          "#{n} primar#{(n == 1) ? "y" : "ies"} (#{[n, PARTITIONS].max} partitions): #{group((n * 1_000_000 / us).round)}"
        end
        one_list = whole ? "; one list: #{group((1_000_000 / whole).round)} however many primaries" : ""
        results.note(:partitions_projection, "Partitions: projected ceiling of one hot queue, jobs/s " \
          "(#{us.round(2)} µs Redis CPU per job measured in #{PARTITIONS} partitions, one core per shard): " \
          "#{ceilings.join(", ")}#{one_list}")
        say("projected ceiling: #{ceilings.join(", ")} jobs/s#{one_list}")
      end

      def group(number) = number.to_s.gsub(/\B(?=(\d{3})+\z)/, ",")
    end
  end
end
