# frozen_string_literal: true

require "test_helper"

# What a capsule's fetch asks each queue for: strict queues the whole
# limit in order, weighted queues a share by weight.
class FetchSourcesTest < Minitest::Test
  def sources(queues, seed: 1)
    capsule = Deckhand::Config::Capsule.new("default", concurrency: 5, queues: queues)
    Deckhand::Server::Fetch::Sources.new(capsule, sequence: Deckhand::Server::Fetch::Sequence.new, suspects: nil,
      random: Random.new(seed))
  end

  def test_strict_queues_each_ask_for_the_whole_limit_in_order
    asked = sources(%w[critical default low]).next(paused: [1], limit: 20)
    assert_equal [[0, 1, 20], [2, 2, 20]], asked
  end

  def test_weighted_shares_add_up_to_the_limit_in_proportion_to_the_weights
    fetch = sources(["heavy,3", "light,1"])
    shares = Array.new(50) { fetch.next(paused: [], limit: 100).to_h { |index, _, share| [index, share] } }
    assert_equal [{0 => 75, 1 => 25}], shares.uniq
  end

  def test_units_left_after_the_split_go_to_a_queue_picked_by_weight
    fetch = sources(["heavy,3", "light,1"], seed: 7)
    heavy = Array.new(4_000) { fetch.next(paused: [], limit: 1).find { |index, _, _| index.zero? }[2] }.sum
    assert_includes 2_800..3_200, heavy, "a one-job fetch picks the heavy queue about three times in four"
  end

  def test_a_paused_queue_leaves_its_share_to_the_others
    asked = sources(["heavy,3", "light,1"]).next(paused: [0], limit: 10)
    assert_equal [[1, 1, 10]], asked
  end

  # docs/priority.md: a queue's levels below 0 are asked before its own
  # list, those above after it, each in the queue's place; a paused queue's
  # levels wait with it.
  def test_priority_levels_are_sources_in_their_queues_place
    fetch = sources(%w[critical default low])
    fetch.levels = {"default" => [7, -5, -40], "gone" => [1]}
    assert_equal [[0, 1, 20], [1, 2, 20, -40], [1, 3, 20, -5], [1, 4, 20], [1, 5, 20, 7], [2, 6, 20]],
      fetch.next(paused: [], limit: 20)
    assert_equal [[0, 7, 20], [2, 8, 20]], fetch.next(paused: [1], limit: 20)
    fetch.levels = {}
    assert_equal [[0, 9, 20], [1, 10, 20], [2, 11, 20]], fetch.next(paused: [], limit: 20)
  end

  # A partitioned queue's partitions go level by level in its place, each
  # level's partitions in their turn: its jobs of a priority below 0 come
  # before its own lists, whichever partition holds them.
  def test_a_partitioned_queues_levels_go_before_its_partitions_own_lists
    capsule = Deckhand::Config::Partitions.new("default" => 2).expand(Deckhand::Config::Capsule.new("default", concurrency: 5, queues: %w[critical default]))
    fetch = Deckhand::Server::Fetch::Sources.new(capsule, sequence: Deckhand::Server::Fetch::Sequence.new, suspects: nil, random: Random.new(3))
    fetch.levels = {"default" => [-1, 4], "default~p1" => [-1]}
    orders = Array.new(Deckhand::Server::Fetch::Sources::TURN * 2) { fetch.next(paused: [], limit: 10).map { |index, _, _, level| [capsule.queues[index], level] } }
    assert_equal [["critical", nil], ["default", -1], ["default~p1", -1], ["default", nil], ["default~p1", nil], ["default", 4]],
      orders.find { |order| order[1] == ["default", -1] }
    assert_equal [["critical", nil], ["default~p1", -1], ["default", -1], ["default~p1", nil], ["default", nil], ["default", 4]],
      orders.find { |order| order[1] == ["default~p1", -1] }, "the partitions take turns within each level"
  end
end
