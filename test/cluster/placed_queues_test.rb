# frozen_string_literal: true

require_relative "core_test"
require_relative "recovery_test"

# The job's life of core_test.rb (push, fetch, retry, scheduled, dead, hand
# back at a stop) and the recoveries of recovery_test.rb, again with every
# queue of the test placed under a tag other than its name's
# ({queue~n:<name>}, one queue per primary): every key of a queue must come
# from its placement.
module PlacedAway
  def setup
    super
    slots = Deckhand::Store::Tags::QueuePlacement::Slots.read(Deckhand.config.store)
    primaries = slots.primaries
    self.class::QUEUES.each_with_index do |queue, index|
      tag = (1..).lazy.map { |n| "{queue~#{n}:#{queue}}" }.find { |t| slots.primary_of(t) == primaries[index % primaries.size] }
      cluster.call("HSET", Deckhand::Store::Layout::Cluster::PLACEMENT, queue, tag)
    end
  end

  def test_the_queues_are_placed_away_from_their_names
    self.class::QUEUES.each do |queue|
      assert_match(/\A\{queue~\d+:#{queue}\}\z/, keys.queue(queue))
      assert_equal "#{keys.queue(queue)}:retry", keys.retry_set(queue)
    end
  end
end

class ClusterPlacedCoreTest < ClusterCoreTest
  include PlacedAway
end

class ClusterPlacedRecoveryTest < ClusterRecoveryTest
  include PlacedAway
end
