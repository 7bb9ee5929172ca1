# frozen_string_literal: true

require "test_helper"

# Config::Partitions without Redis: where pushes go, and what a server's
# capsule fetches from.
class PartitionsConfigTest < Minitest::Test
  Partitions = Deckhand::Config::Partitions
  Capsule = Deckhand::Config::Capsule

  def test_round_robin_and_keys
    partitions = Partitions.new("default" => 3)
    assert_equal 9.times.map { |i| %w[default~p1 default~p2 default][i % 3] }, Array.new(9) { partitions.route("default") }
    assert_equal ["low"], Array.new(1) { partitions.route("low") }, "a queue not partitioned stays itself"
    assert_equal 1, Array.new(20) { partitions.route("default", "acct-7") }.uniq.size
    assert_equal 3, Array.new(60) { |i| partitions.route("default", "acct-#{i}") }.uniq.size, "keys spread over every partition"
    assert_equal [2, 2, 2], partitions.spread("default", Array.new(6) { |i| i }).values.map(&:size)
  end

  def test_a_capsule_works_every_partition_and_weights_stay_in_proportion
    partitions = Partitions.new("default" => 3, "bulk" => 2)
    strict = partitions.expand(Capsule.new("default", concurrency: 5, queues: %w[critical default]))
    assert_equal %w[critical default default~p1 default~p2], strict.queues
    assert strict.strict?
    weighted = partitions.expand(Capsule.new("default", concurrency: 5, queues: ["default,2", "bulk,1", "low,1"]))
    assert_equal({"default" => 4, "default~p1" => 4, "default~p2" => 4, "bulk" => 3, "bulk~p1" => 3, "low" => 6}, weighted.weights)
    plain = Capsule.new("x", concurrency: 1, queues: %w[low])
    assert_same plain, partitions.expand(plain)
  end

  def test_a_strict_capsule_takes_turns_over_the_partitions
    capsule = Partitions.new("default" => 3).expand(Capsule.new("default", concurrency: 5, queues: %w[critical default low]))
    sources = Deckhand::Server::Fetch::Sources.new(capsule, sequence: Deckhand::Server::Fetch::Sequence.new, suspects: nil, random: Random.new(3))
    orders = Array.new(Deckhand::Server::Fetch::Sources::TURN * 3) { sources.next(paused: [], limit: 10).map(&:first) }
    assert orders.all? { |order| order.first.zero? && order.last == 4 }, "the other queues keep their places"
    assert_equal [1, 2, 3], orders.map { |order| order[1] }.uniq.sort, "every partition comes first in turn"
    assert_equal [[1, 2, 3]], orders.map { |order| order[1..3].sort }.uniq
  end
end
