# frozen_string_literal: true

require "test_helper"
require "socket"
require_relative "../support/cluster_helpers"

# A Redis Cluster no node of which answers comes out of the store as a
# Deckhand::ConnectionError (a passing fault: servers wait and retry, a
# reliable push holds its jobs), naming the nodes and the fix; before, the
# cluster client's InitialSetupError came out as a plain RedisError, which
# servers log as a refusal that needs a human.
class ClusterUnreachableTest < Minitest::Test
  include Deckhand::ClusterHelpers

  # Ports nothing listens on: taken, then given back.
  def dead_urls
    2.times.map do
      server = TCPServer.new("127.0.0.1", 0)
      port = server.addr[1]
      server.close
      "redis://127.0.0.1:#{port}"
    end
  end

  def test_nodes_that_refuse_the_connection_are_a_connection_error
    urls = dead_urls
    store = Deckhand::Store.new({cluster: urls}, size: 1)
    error = assert_raises(Deckhand::ConnectionError) { store.call("PING") }
    assert_predicate error, :transient?
    assert_equal "RedisClient::Cluster::InitialSetupError", error.cause.class.name
    urls.each { |url| assert_includes error.message, url.delete_prefix("redis://") }
    assert_match(/no node of the Redis Cluster .* answered .*redis: \{cluster: \[\.\.\.\]\}.*REDIS_URL/, error.message)
  ensure
    store&.shutdown
  end

  # The harness' own cluster, stopped under a store that never reached it.
  def test_a_stopped_cluster_is_a_connection_error
    store = Deckhand::Store.new({cluster: Deckhand::RedisClusterHarness.urls}, size: 1)
    Deckhand::RedisClusterHarness.restart # stops it; the next test starts a new one
    error = assert_raises(Deckhand::ConnectionError) { store.call("PING") }
    assert_match(/no node of the Redis Cluster at redis-cluster:\/\/127\.0\.0\.1:\d+/, error.message)
  ensure
    store&.shutdown
  end
end
