# frozen_string_literal: true

require "tmpdir"
require "fileutils"

module Deckhand
  # A primary with one replica of its own (the harness' Redis has none), for
  # the push_replicas tests: started on first use, stopped at exit. Include
  # it: each test starts with both empty and the replica in sync.
  module ReplicaPair
    def self.pair
      @pair ||= begin
        dir = Dir.mktmpdir("deckhand-durability")
        primary = DevRedis.start(dir: File.join(dir, "primary"), persistent: false)
        replica = DevRedis.start(dir: File.join(dir, "replica"), persistent: false,
          extra: ["--replicaof", "127.0.0.1", primary.port.to_s])
        at_exit do
          [replica, primary].each(&:stop)
          FileUtils.rm_rf(dir)
        end
        [primary, replica]
      end
    end

    def setup
      super
      primary.call("FLUSHALL")
      primary.call("CONFIG", "RESETSTAT") # commandstats of this test only
      wait_for(message: "the replica in sync") { replica.call("INFO", "replication").include?("master_link_status:up") }
    end

    def teardown
      [@primary, @replica].each { |c| c&.close }
      super
    end

    def primary_url = ReplicaPair.pair[0].url

    def primary = @primary ||= RedisClient.new(url: primary_url)

    def replica = @replica ||= RedisClient.new(url: ReplicaPair.pair[1].url)

    # Calls of WAIT the primary answered since the test began.
    def wait_calls = primary.call("INFO", "commandstats")[/cmdstat_wait:calls=(\d+)/, 1].to_i

    def jids_on(conn, key) = conn.call("LRANGE", key, 0, -1).map { |raw| JSON.parse(raw)["jid"] }
  end
end
