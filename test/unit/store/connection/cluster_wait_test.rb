# frozen_string_literal: true

require "test_helper"
require "redis-cluster-client"
require "deckhand/store/connection/cluster_wait"

# push_replicas in cluster mode reaches into redis-cluster-client's pipeline
# (Store::Connection::ClusterWait), and so does the read of every primary's INFO
# (Store::Connection::RedisMemory): no public API gives a node's connection inside a
# pipeline. So the bundle pins the one version those internals were read
# in, and this fails on any other: read lib/redis_client/cluster/pipeline.rb
# of the new version, check append_pipeline and @pipelines still mean what
# ClusterWait and RedisMemory assume, run test/cluster/, then move VETTED
# and the pins.
class ClusterClientPinTest < Minitest::Test
  ROOT = File.expand_path("../../../..", __dir__)
  VETTED = Deckhand::Store::Connection::ClusterWait::VETTED

  def test_the_loaded_redis_cluster_client_is_the_vetted_version
    loaded = Gem.loaded_specs.fetch("redis-cluster-client").version.to_s
    assert_equal VETTED, loaded, "redis-cluster-client #{loaded} is not the version Store::Connection::ClusterWait was read against"
  end

  def test_every_bundle_pins_it_exactly
    %w[Gemfile gemfiles/jruby.gemfile gemfiles/current.gemfile].each do |file|
      pins = File.read(File.join(ROOT, file)).scan(/^\s*gem "redis-cluster-client", "([^"]+)"/).flatten
      assert_equal [VETTED], pins, "#{file} must pin redis-cluster-client to exactly #{VETTED}"
    end
    %w[Gemfile.lock gemfiles/current.gemfile.lock].each do |lock|
      assert_includes File.read(File.join(ROOT, lock)), "redis-cluster-client (= #{VETTED})", lock
    end
  end

  def test_the_internals_cluster_wait_uses_are_there
    pipeline = RedisClient::Cluster::Pipeline
    assert pipeline.private_method_defined?(:append_pipeline), "Pipeline#append_pipeline is gone"
    assert_equal 1, pipeline.instance_method(:append_pipeline).arity, "append_pipeline(node_key) changed its arguments"
    fresh = pipeline.new(nil, nil, nil, exception: false)
    assert fresh.instance_variable_defined?(:@pipelines), "Pipeline keeps no @pipelines any more"
  end
end
