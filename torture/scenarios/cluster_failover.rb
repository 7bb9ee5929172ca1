# frozen_string_literal: true

require "deckhand/dev_redis/local_cluster"
require_relative "../support/push_stream"
require_relative "../support/driver_redis"

module Torture
  # 10. A Redis Cluster (3 primaries, 3 replicas, cluster-node-timeout 1 s)
  # and one server process (the real CLI, REDIS_URL listing the nodes) with a
  # capsule per queue, one queue on each primary. A steady stream of pushes,
  # one job at a time; a third of the way in, the primary of the first queue
  # is SIGKILLed (never the one holding the fleet's {deckhand} records), its
  # replica takes over, the old node comes back as its replica; pushes go on
  # throughout. Twice: with push_replicas = 0 (asynchronous replication, as
  # plain Redis) and push_replicas = 1 (each push WAITs for its replica).
  #
  # Every acknowledged push must run at least once with push_replicas on;
  # with it off, an acknowledged push the replica had not received when the
  # primary died is lost: reported (lost, and the loss window: how long
  # before the kill the oldest lost push had returned), not a failure.
  # gap is the time from the SIGKILL to the first push the client got into
  # the failed shard again, acked_again to the first it acknowledged (with
  # push_replicas on: once the old node is back as the new primary's replica).
  class ClusterFailover < Scenario
    NUMBER = 10
    NAME = "cluster-failover"
    CANDIDATES = %w[default mail reports critical low bulk billing search exports media].freeze
    PUSH_PAUSE = 0.002
    WAIT_TIMEOUT = 0.5
    RECOVERY_LIMIT = 60 # seconds for the failed shard to acknowledge pushes again
    AFTER_RECOVERY = 2 # seconds of pushes at least once it does

    def run
      seconds = size(30, 8)
      [0, 1].each_with_object({}) do |replicas, figures|
        figures.merge!(round(replicas, seconds))
      end
    end

    private

    def round(replicas, seconds)
      @ledger.reset
      cluster = Deckhand::DevRedis::LocalCluster.start(dir: File.join(@dir, "cluster-#{replicas}"), primaries: 3, replicas: 1,
        node_timeout: 1_000)
      @servers << cluster
      queues = spread_queues(cluster)
      fleet = new_fleet(cluster.urls.join(","), name: "fleet-#{replicas}", settings: timing.merge(yaml: capsules(queues)))
      fleet.spawn(concurrency: 3, queues: queues.first(1))
      client = Deckhand::Client.new(config: Deckhand::Config.new(redis: {cluster: cluster.urls},
        push_replicas: replicas, push_replicas_timeout: WAIT_TIMEOUT))
      stream = PushStream.new(client, queues, pause: PUSH_PAUSE).start
      sleep seconds / 3.0
      killed_at, promoted_after = fail_over(cluster, queues.first)
      # Pushes go on until the failed shard acknowledges them again (the
      # client finds the new primary; with push_replicas, it has a replica again).
      wait_until(RECOVERY_LIMIT) { stream.first(queue: queues.first, after: killed_at, outcomes: [:acked]) }
      sleep [seconds * 2 / 3.0 - (Time.now.to_f - killed_at), AFTER_RECOVERY].max
      stream.stop
      drained = drain_acked(stream, queues)
      figures(replicas, stream, queues.first, killed_at, promoted_after, drained, fleet).tap do
        lost = @ledger.missing & stream.acked.map(&:jid)
        @failures << "lost: #{whereabouts(cluster, lost.first(5)).join(", ")}" if replicas.positive? && !lost.empty?
      end
    ensure
      fleet&.stop_all
      @stores&.delete(cluster)&.shutdown
      cluster&.stop
    end

    # A queue on each primary, the first on a primary that does not hold
    # the fleet's records (the one to kill). The candidates are placed here
    # (Store::Tags::QueuePlacement), before any process pushes to them.
    def spread_queues(cluster)
      fleet_node = cluster.primary_for(Deckhand::Store::Layout::Cluster::PROCESSES).port
      by_node = CANDIDATES.group_by { |q| cluster.primary_for(keys(cluster).queue(q)).port }
      raise "the candidate queues do not reach every primary" if by_node.size < 3
      victim = by_node.keys.find { |port| port != fleet_node }
      [by_node[victim].first, *by_node.except(victim).values.map(&:first)]
    end

    # The key names of the queues as placed in `cluster`.
    def keys(cluster)
      @stores ||= {}
      @stores[cluster] ||= Deckhand::Store.new({cluster: cluster.urls}, size: 1)
      @stores[cluster].layout
    end

    # The first queue in the default capsule (-q), each other in its own
    # capsule: one queue per fetch.
    def capsules(queues)
      "capsules:\n" + queues.drop(1).map { |q| "  shard_#{q}: {concurrency: 3, queues: [#{q}]}\n" }.join
    end

    # SIGKILLs the queue's primary; once its replica serves every slot, the
    # old node starts again (it rejoins as that replica's replica). Returns
    # the kill's time and how long the promotion took.
    def fail_over(cluster, queue)
      victim = cluster.primary_for(keys(cluster).queue(queue))
      killed_at = Time.now.to_f
      cluster.kill(victim)
      cluster.wait_until_healthy
      promoted_after = Time.now.to_f - killed_at
      victim.start
      [killed_at, promoted_after]
    end

    # Waits until every acknowledged push ran, or until no job finished for
    # a while (longer than recovering a stuck job takes: the rest are lost).
    def drain_acked(stream, queues)
      @ledger.enqueued(stream.acked.map(&:jid))
      last = [-1, now]
      wait_until(size(240, 120), step: 0.2) do
        done = @ledger.done_count
        last = [done, now] if done != last[0]
        @ledger.missing.empty? || (now - last[1] > size(60, 20))
      end
    end

    # Where the lost jobs are at the end: "<jid> in <key>@<port>" or "<jid> nowhere".
    def whereabouts(cluster, jids)
      found = cluster.nodes.select(&:running?).flat_map do |node|
        redis = Torture.redis(node.url)
        redis.call("READONLY") # a replica answers reads of its slots instead of MOVED
        redis.call("KEYS", "*").flat_map do |key|
          text = contents(redis, key).join("\n")
          jids.select { |jid| text.include?(jid) }.map { |jid| "#{jid} in #{key}@#{node.port}" }
        end
      ensure
        redis&.close
      end
      found + (jids - found.map { |hit| hit.split.first }).map { |jid| "#{jid} nowhere" }
    end

    def contents(redis, key)
      case redis.call("TYPE", key)
      when "list" then redis.call("LRANGE", key, 0, -1)
      when "hash" then redis.call("HGETALL", key).to_a.flatten
      when "zset" then redis.call("ZRANGE", key, 0, -1)
      when "set" then redis.call("SMEMBERS", key)
      when "string" then [redis.call("GET", key)]
      else []
      end
    end

    def figures(replicas, stream, queue, killed_at, promoted_after, drained, fleet)
      books = @ledger.analysis
      acked = stream.acked
      missing = @ledger.missing.to_h { |jid| [jid, true] }
      lost = acked.select { |p| missing[p.jid] }
      window = lost.map { |p| killed_at - p.at }.max
      ran = @ledger.finishes.to_h { |f| [f.jid, true] }
      accepted = stream.first(queue: queue, after: killed_at)
      acked_again = stream.first(queue: queue, after: killed_at, outcomes: [:acked])
      crashed = fleet.exited.size
      check(@ledger.done_count.positive?, "the server ran no job (does this build fetch in cluster mode?)")
      check(crashed.zero?, "#{crashed} server processes died")
      check(lost.empty?, "#{lost.size} acknowledged pushes lost with push_replicas on") if replicas.positive?
      check(drained, "acknowledged jobs still unfinished after the drain") if replicas.positive?
      tag = "wait#{replicas}"
      {
        "#{tag}_acked" => acked.size, "#{tag}_lost" => lost.size,
        "#{tag}_loss_window" => window ? "#{(window * 1000).round}ms" : "n/a",
        "#{tag}_not_replicated" => stream.unreplicated.size,
        "#{tag}_not_replicated_ran" => stream.unreplicated.count { |p| ran[p.jid] }, "#{tag}_failed" => stream.failed.size,
        "#{tag}_duplicates" => books[:duplicate_starts], "#{tag}_promoted" => secs(promoted_after),
        "#{tag}_gap" => secs(accepted && accepted - killed_at), "#{tag}_acked_again" => secs(acked_again && acked_again - killed_at)
      }
    end
  end
end
