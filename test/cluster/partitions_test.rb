# frozen_string_literal: true

require "test_helper"
require "deckhand/api"
require "support/reliability_helpers"
require_relative "../support/cluster_helpers"

# A partitioned queue in cluster mode: each partition placed like a queue of
# its own, so six partitions spread over the three primaries, and a server
# runs every partition's jobs once.
class ClusterPartitionsTest < Minitest::Test
  include Deckhand::ReliabilityHelpers
  include Deckhand::ClusterHelpers

  LISTS = Deckhand::Store::Layout::PartitionNames.list("default", 6)

  def setup
    super
    Deckhand.config = new_config(partitions: {"default" => 6}, concurrency: 4, heartbeat_interval: 0.1,
      scheduler_interval: 0.05, timeout: 2)
  end

  def slots = Deckhand::Store::Tags::QueuePlacement::Slots.read(Deckhand.config.store)

  def sizes = LISTS.map { |list| cluster.call("LLEN", keys.queue(list)) }

  def test_six_partitions_spread_two_by_two_over_three_primaries_and_a_server_runs_each_job_once
    jids = RecordJob.perform_bulk(Array.new(60) { |i| [i] })
    assert_equal [10] * 6, sizes
    by_primary = LISTS.group_by { |list| slots.primary_of(keys.queue(list)) }
    assert_equal [2, 2, 2], by_primary.values.map(&:size), "each primary holds two partitions"
    queue = Deckhand::API.new.queues.find { |q| q.name == "default" }
    assert_equal ["default"], Deckhand::API.new.queues.map(&:name), "the queue shows once"
    assert_equal 60, queue.size
    assert_equal LISTS, queue.partitions.map(&:name)

    failed = FailJob.set(partition_by: "k").perform_async("boom")
    list = Deckhand.config.partitions.route("default", "k")
    with_server do |launcher|
      wait_for(message: "60 jobs") { Deckhand::TestJobs.runs.count { |_, args| args != ["boom"] } >= 60 }
      wait_for(message: "the failure's retry") { cluster.call("ZCARD", keys.retry_set(list)) == 1 }
      wait_for(message: "acknowledgements") { inflight_payloads(launcher.identity, LISTS).empty? }
    end
    assert_equal jids.sort, Deckhand::TestJobs.runs.reject { |_, args| args == ["boom"] }.map(&:first).sort
    assert_equal [0] * 6, sizes
    assert_equal "default", JSON.parse(cluster.call("ZRANGE", keys.retry_set(list), 0, 0).first)["queue"]
    assert_equal [failed], Deckhand::API.new.retries.page(1, 10).map(&:jid), "the dashboard finds the partition's retries"
  end

  def test_a_dead_process_s_jobs_go_back_to_their_partitions_on_every_primary
    identity = dead_process(queues: LISTS, lots: LISTS.to_h { |list| [list, [[payload("a-#{list}"), payload("b-#{list}")]]] },
      landing: {LISTS[3] => [payload("d")]})
    wait_for_redis_uptime(1)
    assert_equal 1, reaper.reap
    LISTS.each do |list|
      expected = %W[b-#{list} a-#{list}]
      expected.unshift("d") if list == LISTS[3]
      assert_equal expected, queue_jids(list), "#{list}'s jobs back in #{list}, the first taken next out"
      assert_equal 0, redis.call("EXISTS", keys.inflight(identity, list))
      assert_equal 1, recoveries("a-#{list}", queue: list)
    end
    assert_equal 3, LISTS.map { |list| slots.primary_of(keys.queue(list)) }.uniq.size
  end

  def test_pausing_the_queue_pauses_every_partition
    Deckhand::API.new.queue("default").pause
    6.times { |i| RecordJob.perform_async(i) }
    Deckhand.config = new_config(partitions: {"default" => 6}, queues: %w[default low], heartbeat_interval: 0.1, timeout: 2)
    with_server do
      marker = RecordJob.set(queue: "low").perform_async("low")
      wait_for(message: "the other queue's job") { Deckhand::TestJobs.runs.any? { |jid, _| jid == marker } }
      assert_equal [1] * 6, sizes
      Deckhand::API.new.queue("default").resume
      wait_for(message: "the resumed queue's jobs") { Deckhand::TestJobs.runs.size == 7 }
    end
  end
end
