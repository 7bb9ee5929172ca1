# frozen_string_literal: true

# The application the cluster end-to-end tests boot with `deckhand -r`: a job
# that records its queue and arguments (as JSON) in the cluster, on a
# connection of its own, and one that holds its thread until the test
# releases it.

require "deckhand"
require "json"
require "redis-cluster-client"

module ClusterE2E
  RUNS = "{e2e}:runs"

  def self.client
    @client ||= RedisClient.cluster(nodes: ENV.fetch("CLUSTER_E2E_NODES").split(",")).new_pool(size: 5)
  end

  class RecordJob
    include Deckhand::Job

    def perform(*args)
      ClusterE2E.client.call("RPUSH", RUNS, JSON.generate([deckhand_payload["queue"], args]))
    end
  end

  # Records its start, waits for the test to push to its release list, then
  # records its end: a job a process is surely running when it is killed.
  class HeldJob
    include Deckhand::Job

    def perform(name)
      ClusterE2E.client.call("RPUSH", "{e2e}:started", jid)
      ClusterE2E.client.blocking_call(40, "BLPOP", "{e2e}:release:#{name}", 30)
      ClusterE2E.client.call("RPUSH", "{e2e}:finished", jid)
    end
  end
end
