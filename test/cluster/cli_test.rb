# frozen_string_literal: true

require "test_helper"
require "support/cli_process"
require_relative "../support/cluster_helpers"

# The real CLI against a Redis Cluster, told so by REDIS_URL listing the
# nodes: it runs the jobs of queues on every primary and stops cleanly on TERM.
class ClusterCliTest < Minitest::Test
  include Deckhand::ClusterHelpers

  APP = File.expand_path("apps/cluster_jobs.rb", __dir__)
  QUEUES = %w[default mail low].freeze
  ARGS = ["ünïcødé ✓", 2**70, -0.1, {"nested" => [nil, true, "\u0000\n\"q\""]}, []].freeze

  def teardown
    @cli&.kill
    super
  end

  def test_the_cli_runs_every_queues_jobs_and_stops_on_term
    QUEUES.each do |queue|
      Deckhand::Client.push_bulk("class" => "ClusterE2E::RecordJob", "queue" => queue, "args" => (1..50).map { |n| [n, *ARGS] })
    end
    @cli = Deckhand::CliProcess.start("-r", APP, "-c", "5", *QUEUES.flat_map { |q| ["-q", q] },
      env: {"REDIS_URL" => Deckhand::RedisClusterHarness.urls.join(","), "CLUSTER_E2E_NODES" => Deckhand::RedisClusterHarness.urls.join(",")})
    identity = @cli.identity
    Deckhand::Client.push("class" => "ClusterE2E::RecordJob", "queue" => "low", "args" => ["after boot", *ARGS])
    wait_for(timeout: 60, message: "151 jobs") { cluster.call("LLEN", "{e2e}:runs") == 151 }
    @cli.signal("TERM")
    assert_predicate @cli.wait_exit(timeout: 30), :success?, @cli.output
    runs = cluster.call("LRANGE", "{e2e}:runs", 0, -1)
    expected = QUEUES.flat_map { |q| (1..50).map { |n| JSON.generate([q, [n, *ARGS]]) } } << JSON.generate(["low", ["after boot", *ARGS]])
    assert_equal expected.sort, runs.sort, "every job ran once, its args as pushed"
    assert_equal 0, Deckhand::Store::Inflight.count(Deckhand.config.store, identity, QUEUES)
    assert_empty @cli.own_warnings
    assert_equal 0, cluster.call("EXISTS", keys.process(identity))
  end
end
