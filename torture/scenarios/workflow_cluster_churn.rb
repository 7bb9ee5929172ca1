# frozen_string_literal: true

require "deckhand/dev_redis/local_cluster"
require_relative "workflow_churn"

module Torture
  # 22. The workflow churn (scenario 20) on a Redis Cluster of 3 primaries:
  # the workflows' keys in the one {workflows} slot, their steps' jobs in
  # the default queue's slot, so every release goes through the outbox
  # (docs/workflows.md, "Cluster mode") and a SIGKILL can fall between a
  # step released there and its job pushed to its queue. The same sizes,
  # kills and checks (every step runs, once unless its process was killed;
  # none before its parents finished; every workflow ends, its counts add
  # up; no step lost), and the outbox is empty at the end.
  class WorkflowClusterChurn < WorkflowChurn
    NUMBER = 22
    NAME = "workflow-cluster-churn"

    def run
      super
    ensure
      @store&.shutdown
    end

    private

    def start_system
      @cluster = Deckhand::DevRedis::LocalCluster.start(dir: File.join(@dir, "cluster"), primaries: 3, replicas: 0)
      @servers << @cluster
      @store = Deckhand::Store.new({cluster: @cluster.urls}, size: 2)
      [@cluster.urls.join(","), {cluster: @cluster.urls}, @store]
    end

    def queue_key = @store.layout.queue("default")

    def dead_key = @store.layout.dead_set("default")

    def owners_key = @store.layout::OWNERS

    # In-flight hashes and landing lists of the default queue (on the
    # primary of its slot), and owner entries.
    def leftovers(store)
      tag = store.layout.tag("default")
      node = Torture.redis(@cluster.primary_for(queue_key).url)
      patterns = [Deckhand::Store::Layout::TagNames.inflight(tag, "*"), Deckhand::Store::Layout::TagNames.landing(tag, "*")]
      patterns.sum { |pattern| scan_count(node, pattern) } + store.call("HLEN", owners_key)
    ensure
      node&.close
    end

    # Steps released to the outbox and never pushed to their queue.
    def more_figures(store)
      names = store.layout.workflows
      outbox = store.call("ZCARD", names::OUTBOX) + store.call("HLEN", names::OUTBOX_JOBS)
      check(outbox.zero?, "#{outbox} outbox entries left")
      {"outbox_left" => outbox}
    end
  end
end
