# frozen_string_literal: true

require "tmpdir"
require "redis-cluster-client"
require "deckhand/dev_redis/local_cluster"

module Deckhand
  # One private Redis Cluster for the whole test run (three primaries, three
  # replicas, on free loopback ports, no persistence), started by the first
  # cluster test and stopped at exit. A test that kills a node asks for a
  # fresh cluster afterwards (#restart), so the next test starts whole.
  module RedisClusterHarness
    class << self
      def cluster
        @cluster ||= begin
          @dir = Dir.mktmpdir("deckhand-test-cluster")
          at_exit { stop }
          DevRedis::LocalCluster.start(dir: @dir, primaries: 3, replicas: 1)
        end
      end

      def urls = cluster.urls

      # A cluster client of the harness' own, for tests to look at Redis.
      def client
        @client ||= RedisClient.cluster(nodes: urls).new_client
      end

      # Empties every primary (their replicas follow), and starts the next
      # test with a client that knows today's topology: an earlier test may
      # have swapped a primary and its replica (CLUSTER FAILOVER).
      def flush
        @client&.close
        @client = nil
        cluster.wait_until_healthy
        cluster.primaries.each do |node|
          conn = RedisClient.new(url: node.url)
          conn.call("FLUSHALL")
        ensure
          conn&.close
        end
      end

      # After a test killed nodes: a new cluster for the tests that follow.
      def restart
        stop
        @cluster = nil
      end

      def stop
        @client&.close
        @client = nil
        @cluster&.stop
        FileUtils.rm_rf(@dir) if @dir
      end
    end
  end
end
