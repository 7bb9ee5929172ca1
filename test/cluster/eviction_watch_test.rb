# frozen_string_literal: true

require "test_helper"
require "stringio"
require "deckhand/api"
require_relative "../support/cluster_helpers"

# In cluster mode every primary holds queues of its own and evicts on its
# own: the eviction watch reads each one's INFO, and a server warns about
# the one primary whose policy may evict.
class ClusterEvictionWatchTest < Minitest::Test
  include Deckhand::ClusterHelpers

  def teardown
    node_call(@lru, "CONFIG", "SET", "maxmemory-policy", "noeviction") if @lru
    super
  end

  def test_every_primary_is_read_and_the_evicting_one_named
    primaries = Deckhand::RedisClusterHarness.cluster.primaries
    @lru = primaries[1]
    node_call(@lru, "CONFIG", "SET", "maxmemory-policy", "allkeys-lru")
    address = "127.0.0.1:#{@lru.port}"
    nodes = Deckhand::Store::Connection::RedisMemory.read(Deckhand.config.store)
    assert_equal primaries.map { |node| "127.0.0.1:#{node.port}" }.sort, nodes.map(&:address).sort
    assert_equal({address => "allkeys-lru"}, nodes.select(&:evicting?).to_h { |node| [node.address, node.policy] })
    log = StringIO.new
    config = new_config(heartbeat_interval: 0.05, eviction_check_interval: 0.1, timeout: 1)
    config.logger = Logger.new(log)
    with_server(config) do |launcher|
      warnings = log.string.lines.grep(/WARN.*maxmemory-policy/)
      assert_equal 1, warnings.size, log.string
      assert_includes warnings.first, "Redis at #{address} has maxmemory-policy allkeys-lru"
      assert_equal 3, launcher.eviction_watch.look.nodes.size
    end
    assert_equal 1, Deckhand::API.new(config).eviction.warnings.size
  end
end
