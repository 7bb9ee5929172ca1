# frozen_string_literal: true

require "test_helper"
require "securerandom"
require_relative "../support/cluster_helpers"

# Cluster mode's idle waiter, its connection killed right after its BLMOVE
# moved a pushed job (test/integration/idle_wait_drop_test.rb has the plain
# mode's): the waiter finds the job in its landing list once it reconnects,
# and it runs once.
class ClusterIdleWaitDropTest < Minitest::Test
  include Deckhand::ClusterHelpers

  def test_a_job_moved_as_the_waiters_connection_drops_runs_once_promptly
    Deckhand.config = new_config(concurrency: 1)
    Deckhand.config.logger = Logger.new($stderr) if ENV["DEBUG_LOG"]
    jid = SecureRandom.hex(12)
    with_server do |launcher|
      node = Deckhand::RedisClusterHarness.cluster.primary_for(keys.queue("default"))
      landing = keys.landing(launcher.identity, "default")
      # Blocked now (flag b), not only last seen in a BLMOVE: a wait that
      # timed out keeps cmd=blmove in the list until its next command.
      ids = wait_for(message: "the idle waiter blocked in Redis") do
        node_call(node, "CLIENT", "LIST").lines.grep(/cmd=blmove/).select { |line| line[/\bflags=(\S+)/, 1].include?("b") }
          .map { |line| line[/\bid=(\d+)/, 1] }.then { |f| f unless f.empty? }
      end
      payload = JSON.generate({"class" => "RecordJob", "args" => [1], "jid" => jid, "queue" => "default", "retry" => true,
        "created_at" => 1, "enqueued_at" => 1})
      conn = RedisClient.new(url: node.url)
      *killed, landed = conn.pipelined do |pipe|
        pipe.call("LPUSH", keys.queue("default"), payload)
        ids.each { |id| pipe.call("CLIENT", "KILL", "ID", id) }
        pipe.call("LLEN", landing)
      end.drop(1)
      conn.close
      assert_equal [[1] * ids.size, 1], [killed, landed], "the move was made and the waiter's connection killed"
      started = monotonic
      wait_for(timeout: 20, message: "the job to run") { Deckhand::TestJobs.runs.any? }
      assert_operator monotonic - started, :<, 10, "the job ran promptly, not at the stop"
      wait_for(message: "the landing list emptied") { cluster.call("LLEN", landing).zero? }
    end
    assert_equal [[jid, [1]]], Deckhand::TestJobs.runs, "the job ran once"
    assert_equal 0, cluster.call("LLEN", keys.queue("default")), "nothing handed back at the stop"
  end
end
