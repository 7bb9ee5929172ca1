# frozen_string_literal: true

require "test_helper"
require "deckhand/api"
require "support/throttle_probe"
require_relative "../support/cluster_helpers"

# A throttled partitioned queue in cluster mode: six partitions on three
# primaries, each enforcing its share of the limit in a throttle hash in its
# own slot, so the queue drains with the cap held across every primary.
class ClusterPartitionedThrottleTest < Minitest::Test
  include Deckhand::ClusterHelpers

  Probe = Deckhand::ThrottleProbe
  LISTS = Deckhand::Store::Layout::PartitionNames.list("default", 6)
  SHARES = [2, 2, 1, 1, 1, 1].freeze # 8 over 6 partitions

  def setup
    super
    Probe.reset
    Deckhand.config = new_config(partitions: {"default" => 6}, throttle: {"default" => {concurrency: 8}},
      concurrency: 12, heartbeat_interval: 0.1, timeout: 2)
  end

  def held_by_list = LISTS.map { |list| cluster.call("HGET", keys.throttle(list), "~held").to_i }

  def waiting = LISTS.sum { |list| cluster.call("LLEN", keys.queue(list)) }

  def test_a_throttled_partitioned_queue_drains_with_its_cap_held_across_the_primaries
    jids = Probe.perform_bulk(Array.new(18) { |i| [i] })
    slots = Deckhand::Store::Tags::QueuePlacement::Slots.read(Deckhand.config.store)
    assert_equal 3, LISTS.map { |list| slots.primary_of(keys.throttle(list)) }.uniq.size, "the throttle hashes spread with their partitions"
    LISTS.each { |list| assert_equal cluster.call("CLUSTER", "KEYSLOT", keys.queue(list)), cluster.call("CLUSTER", "KEYSLOT", keys.throttle(list)) }
    with_server do
      wait_for(message: "the limit reached") { Probe::GATE.num_waiting >= 8 }
      assert_equal 10, waiting, "the 12 threads took no more than the 8 slots"
      assert_equal SHARES, held_by_list, "each partition holds its share"
      assert_equal 8, Deckhand::API.new.throttle("default").held
      18.times do |i|
        Probe::GATE << :go
        wait_for(message: "job #{i + 1} done") { Deckhand::TestJobs.runs.size == i + 1 }
      end
      wait_for(message: "every slot back") { Deckhand::API.new.throttle("default").held.zero? }
    end
    assert_equal 8, Probe.most, "at most 8 at once, and 8 reached"
    assert_equal jids.sort, Deckhand::TestJobs.runs.map(&:first).sort
    assert_equal 0, waiting
  end
end
