# frozen_string_literal: true

require "test_helper"
require "tmpdir"
require_relative "../support/sentinel"

# A server working through a real Sentinel while the Sentinel fails the
# primary over to its replica (docs/redis.md, "Sentinel"): the server goes
# on with the new primary, and every job pushed before and after runs.
class SentinelFailoverTest < Minitest::Test
  NAME = Deckhand::Sentinel::NAME
  BEFORE = 3000

  # 10 ms of work: the server is still draining the first jobs when the
  # failover comes.
  class WorkJob
    include Deckhand::Job

    def perform(n)
      sleep 0.01
      Deckhand::TestJobs.record([jid, n])
    end
  end

  def setup
    super
    Deckhand::TestJobs.reset
    @dir = Dir.mktmpdir("deckhand-sentinel")
    @primary = Deckhand::DevRedis.start(dir: File.join(@dir, "primary"), persistent: false)
    @replica = Deckhand::DevRedis.start(dir: File.join(@dir, "replica"), persistent: false,
      extra: ["--replicaof", "127.0.0.1", @primary.port.to_s])
    @sentinel = Deckhand::Sentinel.start(dir: @dir, primary_port: @primary.port, failover: true)
    wait_for(message: "the Sentinel to know the replica") { @sentinel.replica? }
  end

  def teardown
    @config&.store&.shutdown
    @sentinel&.stop
    [@replica, @primary].each { |server| server&.stop }
    FileUtils.rm_rf(@dir)
    super
  end

  def test_a_server_goes_on_with_the_new_primary_after_a_failover
    @config = Deckhand::Config.new(redis: {name: NAME, sentinels: [{host: "127.0.0.1", port: @sentinel.port}], role: :master},
      concurrency: 5, scheduler_interval: 0.2)
    log = StringIO.new
    @config.logger = Logger.new(log)
    client = Deckhand::Client.new(config: @config)
    before = client.push_bulk("class" => WorkJob.name, "args" => Array.new(BEFORE) { |i| [i] })

    with_server(@config) do
      wait_for(message: "the server to run jobs on the first primary") { Deckhand::TestJobs.runs.size >= 20 }
      @sentinel.call("SENTINEL", "FAILOVER", NAME)
      wait_for(timeout: 60, message: "the Sentinel to name the replica as primary") { @sentinel.primary_port == @replica.port }
      running = Deckhand::TestJobs.runs.size
      wait_for(timeout: 60, message: "the old primary to follow the new one") { role(@primary) == "slave" }

      after = push_bulk_once(client, Array.new(300) { |i| [BEFORE + i] })
      pushed = before + after
      wait_for(timeout: 60, message: "every job pushed to run") { (pushed - Deckhand::TestJobs.runs.map(&:first)).empty? }

      ran = Deckhand::TestJobs.runs.map(&:first).tally
      assert_empty ran.keys - pushed, "only the pushed jobs ran"
      assert_equal 300, after.uniq.size
      assert_equal @replica.port, server_port, "the store's connections go to the new primary"
      assert_operator running, :<, BEFORE, "the failover came while the first jobs were being worked"
      assert_equal [], ran.select { |_, n| n > 1 }.keys, "no job ran twice"
      assert_empty log.string.lines.grep(/ crashed/), "no thread of the server died"
    end
  end

  private

  # The old primary closed the connections it held: the first push on one
  # fails, and says which jobs it wrote; the rest are pushed again
  # (docs/reliability.md), none twice.
  def push_bulk_once(client, args)
    client.push_bulk("class" => WorkJob.name, "args" => args)
  rescue Deckhand::PushIncomplete => e
    assert_empty e.in_doubt
    e.pushed + e.unpushed.map { |job| client.push(job) }
  end

  def server_port = @config.store.call("INFO", "server")[/tcp_port:(\d+)/, 1].to_i

  # A server being demoted closes its clients: that reads as "not yet".
  def role(server)
    conn = RedisClient.new(url: server.url)
    conn.call("ROLE").first
  rescue RedisClient::ConnectionError
    nil
  ensure
    conn&.close
  end
end
