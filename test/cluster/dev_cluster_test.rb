# frozen_string_literal: true

require "test_helper"
require "deckhand/dev_redis/local_cluster"

# A development cluster of one primary and no replica (the benchmark's
# smallest) is a cluster a client can use: the node announces its address.
class DevClusterTest < Minitest::Test
  def test_a_lone_primary_serves_a_cluster_client
    dir = Dir.mktmpdir("deckhand-lone-primary")
    cluster = Deckhand::DevRedis::LocalCluster.start(dir: dir, primaries: 1, replicas: 0)
    store = Deckhand::Store.new({cluster: cluster.urls}, size: 1)
    assert_equal 1, store.call("LPUSH", "{queue:default}", "job")
    assert_equal cluster.primaries.first, cluster.primary_for("{queue:default}")
  ensure
    store&.shutdown
    cluster&.stop
    FileUtils.rm_rf(dir) if dir
  end
end
