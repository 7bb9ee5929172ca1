# frozen_string_literal: true

require "test_helper"
require "deckhand/server"
require "deckhand/api"
require_relative "../support/cluster_helpers"

# Fair queues in cluster mode: the tenants' jobs and tenants hash live in
# their queue's slot, so the fair push and the fetch that serves them stay
# one script each; a server works two fair queues on different shards.
class ClusterFairQueueTest < Minitest::Test
  include Deckhand::ClusterHelpers

  def slot(key) = cluster.call("CLUSTER", "KEYSLOT", key)

  def push(queue, tenant, count)
    Deckhand::Client.push_bulk("class" => "RecordJob", "queue" => queue, "tenant" => tenant, "args" => Array.new(count) { |i| [tenant, i] })
  end

  def test_tenants_share_a_fair_queue_with_its_keys_in_the_queues_slot
    Deckhand.config = new_config(concurrency: 5, queues: %w[reports exports], heartbeat_interval: 0.5, timeout: 2, fair_queues: {"reports" => {}, "exports" => {}})
    keys.place(%w[reports exports])
    %w[reports exports].each do |queue|
      assert_equal slot(keys.queue(queue)), slot(keys.fair_jobs(queue))
      assert_equal slot(keys.queue(queue)), slot(keys.fair_tenants(queue))
    end
    jids = push("reports", "a", 500) + push("reports", "b", 10) + push("exports", "c", 50)
    assert_equal 510, Deckhand::API.new.queue("reports").size
    with_server do
      wait_for(timeout: 60, message: "560 jobs") { Deckhand::TestJobs.runs.size >= 560 }
    end
    runs = Deckhand::TestJobs.runs
    assert_equal jids.sort, runs.map(&:first).sort
    reports = runs.map { |_, args| args.first }.reject { |tenant| tenant == "c" }
    assert_operator reports[0...reports.rindex("b")].count("a"), :<, 100, "b's 10 jobs waited for few of a's"
    assert_equal 0, cluster.call("EXISTS", keys.fair_jobs("reports"))
    assert_equal ["~vt"], cluster.call("HKEYS", keys.fair_tenants("reports"))
  end
end
