# frozen_string_literal: true

require_relative "../e2e/e2e_helper"
require_relative "../support/cluster_helpers"

# The real `deckhand` command in cluster mode, from REDIS_URL listing the
# cluster's nodes: it uses the cluster (no development Redis started in its
# place) and beats in the fleet's {deckhand} records.
class ClusterRedisUrlCliTest < Minitest::Test
  include Deckhand::E2EHelpers
  include Deckhand::ClusterHelpers

  def test_redis_url_listing_nodes_runs_the_server_on_the_cluster
    cli = boot("-c", "1", env: {"REDIS_URL" => Deckhand::RedisClusterHarness.urls.join(",")})
    refute_match(/development Redis/, cli.output)
    wait_for(message: "the process record on the cluster") do
      cluster.call("SMEMBERS", keys::PROCESSES).include?(cli.identity)
    end
  end
end
