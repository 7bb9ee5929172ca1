# frozen_string_literal: true

# The application the cluster end-to-end test boots with `deckhand -r`: a job
# that records its queue and arguments (as JSON) in the cluster, on a
# connection of its own.

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
end
