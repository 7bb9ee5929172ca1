# frozen_string_literal: true

require "test_helper"
require "tmpdir"
require "support/cli_process"
require "support/cluster_helpers"

# Real server processes on a Redis Cluster, one SIGKILLed while it runs a job
# of a queue that lives on another primary than the fleet's records: the
# survivor recovers the job and runs it, without any restart.
class ClusterSigkillTest < Minitest::Test
  include Deckhand::ClusterHelpers

  APP = File.expand_path("apps/cluster_jobs.rb", __dir__)

  def teardown
    (@clis || []).each(&:kill)
    FileUtils.rm_rf(@dir) if @dir
    super
  end

  def test_a_survivor_runs_the_job_of_a_sigkilled_process
    queue = %w[mail reports default].find { |q| primary(keys.queue(q)) != primary(keys::PROCESSES) }
    @dir = Dir.mktmpdir("deckhand-cluster-sigkill")
    config = File.join(@dir, "deckhand.yml")
    File.write(config, "heartbeat_interval: 0.2\nheartbeat_ttl: 1\n")
    nodes = Deckhand::RedisClusterHarness.urls.join(",")
    @clis = Array.new(2) do
      Deckhand::CliProcess.start("-r", APP, "-C", config, "-c", "1", "-q", queue,
        env: {"REDIS_URL" => nodes, "CLUSTER_E2E_NODES" => nodes})
    end
    @clis.each(&:identity) # both booted
    jid = Deckhand::Client.push("class" => "ClusterE2E::HeldJob", "queue" => queue, "args" => ["once"])
    wait_for(message: "the job to start") { started.include?(jid) }
    victim = @clis.find { |cli| Deckhand::Store::Inflight.count(Deckhand.config.store, cli.identity, [queue]).positive? }
    refute_nil victim, "no process holds the job"
    victim.signal("KILL")
    victim.wait_exit(timeout: 5)

    wait_for(message: "the job to start again on the survivor") { started.count(jid) == 2 }
    cluster.call("RPUSH", "{e2e}:release:once", "go")
    wait_for(message: "the job to finish") { cluster.call("LRANGE", "{e2e}:finished", 0, -1) == [jid] }
    assert_equal 0, cluster.call("HEXISTS", keys::OWNERS, victim.identity), "the dead process is still an owner"
    assert_equal 0, Deckhand::Store::Inflight.count(Deckhand.config.store, victim.identity, [queue])
  end

  private

  def started = cluster.call("LRANGE", "{e2e}:started", 0, -1)

  def primary(key) = Deckhand::RedisClusterHarness.cluster.primary_for(key).port
end
