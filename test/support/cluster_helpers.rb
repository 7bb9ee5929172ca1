# frozen_string_literal: true

require_relative "redis_cluster_harness"

module Deckhand
  # For tests that run Deckhand in cluster mode against the harness' Redis
  # Cluster: include it after Minitest::Test's own helpers; every test then
  # starts with an empty cluster and Deckhand.config in cluster mode.
  #
  #   class ClusterPushTest < Minitest::Test
  #     include Deckhand::ClusterHelpers
  #     def test_push = assert_equal 1, (Job.perform_async; cluster.call("LLEN", keys.queue("default")))
  #   end
  module ClusterHelpers
    def setup
      RedisClusterHarness.flush
      super # its FLUSHALL goes through `redis`: the cluster's primaries
      Deckhand.config = new_config
    end

    def new_config(**settings)
      config = Deckhand::Config.new(redis: {cluster: RedisClusterHarness.urls}, **settings)
      config.logger = TestHelpers::QUIET_LOGGER
      config
    end

    # The harness' own cluster client (follows redirections).
    def cluster = RedisClusterHarness.client

    # Tests written for plain mode look at Redis through `redis`.
    def redis = cluster

    # The key names of the config's store: each queue under its placement's tag.
    def keys = Deckhand.config.store.layout

    # A command to one node of the cluster, on a connection of its own
    # (no redirection: what that node itself answers).
    def node_call(node, *command)
      conn = RedisClient.new(url: node.url)
      conn.call(*command)
    ensure
      conn&.close
    end

    def jobs_in(queue) = cluster.call("LRANGE", keys.queue(queue), 0, -1).map { |raw| JSON.parse(raw) }
  end
end
