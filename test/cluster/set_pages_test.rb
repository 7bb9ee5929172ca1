# frozen_string_literal: true

require "test_helper"
require "deckhand/api"
require_relative "../support/cluster_helpers"

# Pages of the sharded schedule, retry and dead sets, deep in the set: each
# page is a slice of the one merged order (score, then queue name, then the
# entry's bytes; the dead set newest first), so walking the pages shows every
# entry exactly once, however the entries spread over the queues' shards.
class ClusterSetPagesTest < Minitest::Test
  include Deckhand::ClusterHelpers

  QUEUES = %w[billing default mail].freeze # one on each primary

  def api = Deckhand::API.new(Deckhand.config)

  def store = Deckhand.config.store

  # Entries straight into a queue's shard (the queue named in the set of
  # queues): scores[i] is the score of the entry "<queue>-<i>".
  def put(set, queue, scores)
    cluster.call("SADD", keys::QUEUES, queue)
    return if scores.empty?
    entries = scores.each_with_index.flat_map do |score, i|
      jid = "#{queue}-#{i}"
      [score, JSON.generate("class" => "RecordJob", "args" => [i], "jid" => jid, "queue" => queue)]
    end
    entries.each_slice(1_000) { |slice| cluster.call("ZADD", keys.public_send(set, queue), *slice) }
  end

  # The whole set as [shard, raw], merged here from each shard's entries.
  def merged(set, reverse:)
    all = QUEUES.flat_map do |queue|
      pairs(keys.public_send(set, queue)).map do |raw, score|
        [Float(score), queue, raw]
      end
    end
    all.sort!
    all.reverse! if reverse
    all.map { |_, queue, raw| [queue, raw] }
  end

  def page(set, number, per_page) = set.page(number, per_page).map { |entry| [entry.shard, entry.raw] }

  # Every page, in turn, is the next slice of the merged order, with the
  # right ranks; the page after the last is empty.
  def assert_pages_walk(set, expected, per_page)
    pages = (expected.size + per_page - 1) / per_page
    (1..pages).each do |number|
      entries = set.page(number, per_page)
      first = (number - 1) * per_page
      assert_equal expected[first, per_page], entries.map { |entry| [entry.shard, entry.raw] }, "page #{number} of #{pages} (#{per_page} a page)"
      assert_equal (first...first + entries.size).to_a, entries.map(&:rank), "ranks on page #{number}"
    end
    assert_empty set.page(pages + 1, per_page), "nothing past the last page"
  end

  def test_uneven_shards_page_through_in_score_order_from_start_to_end
    rng = Random.new(7)
    put(:retry_set, "default", [])
    put(:retry_set, "mail", Array.new(1_400) { 1_700_000_000_000 + rng.rand(500_000) })
    put(:retry_set, "billing", Array.new(90) { 1_700_000_000_000 + rng.rand(500_000) })
    expected = merged(:retry_set, reverse: false)
    assert_equal 1_490, api.retries.size
    assert_pages_walk(api.retries, expected, 25)
  end

  def test_the_dead_set_pages_newest_first_through_uneven_shards
    rng = Random.new(11)
    put(:dead_set, "billing", Array.new(1_200) { (1_732_000_000 + (rng.rand * 86_400)).round(6) })
    put(:dead_set, "default", Array.new(5) { (1_732_000_000 + (rng.rand * 86_400)).round(6) })
    put(:dead_set, "mail", [])
    expected = merged(:dead_set, reverse: true)
    assert_pages_walk(api.dead, expected, 25)
  end

  # Runs of equal scores span all three shards and many pages, so page
  # boundaries fall inside a score, between shards and inside one shard.
  def test_equal_scores_across_shards_split_by_a_page_boundary_in_both_orders
    put(:scheduled_set, "billing", Array.new(400) { |i| 5_000 + (i / 90) })
    put(:scheduled_set, "default", Array.new(700) { |i| 5_000 + (i / 150) })
    put(:scheduled_set, "mail", Array.new(300) { |i| 5_000 + (i / 60) })
    copy_scheduled_to_dead
    [[:scheduled_set, api.scheduled, false], [:dead_set, api.dead, true]].each do |set, reader, reverse|
      expected = merged(set, reverse: reverse)
      assert_equal 1_400, expected.size
      [25, 7].each { |per_page| assert_pages_walk(reader, expected, per_page) }
    end
  end

  # One shard far larger than the others, the small one's entries mostly
  # after it: finding a page's start there takes the seek more than one round.
  def test_pages_deep_in_one_large_shard_among_small_ones
    rng = Random.new(19)
    put(:retry_set, "mail", Array.new(30_000) { rng.rand(3_000) })
    put(:retry_set, "billing", Array.new(300) { 2_990 + rng.rand(1_000) })
    put(:retry_set, "default", [])
    expected = merged(:retry_set, reverse: false)
    last = (expected.size + 24) / 25
    [1, 2, 5, *(400..412), 555, 700, last - 1, last].each do |number|
      assert_equal expected[(number - 1) * 25, 25], page(api.retries, number, 25), "page #{number} of #{last}"
    end
  end

  # Bounds kept far narrower than the defaults make every deep page take the
  # seek several rounds and place its start from the runs of scores.
  def test_a_seek_of_many_rounds_finds_every_page_in_both_orders
    rng = Random.new(23)
    put(:dead_set, "billing", Array.new(900) { rng.rand(400) })
    put(:dead_set, "default", Array.new(2_000) { rng.rand(100) * 4 })
    put(:dead_set, "mail", Array.new(600) { 100 + rng.rand(50) })
    shards = QUEUES.map { |queue| [queue, keys.dead_set(queue)] }
    [false, true].each do |reverse|
      expected = merged(:dead_set, reverse: reverse)
      merge = Deckhand::Store::Sets::Merge.new(store, shards, reverse, near: 3, width: 10)
      (0...expected.size).step(7).each do |offset|
        assert_equal expected[offset, 7], merge.page(offset, 7).map { |queue, raw, _| [queue, raw] }, "offset #{offset}, reverse: #{reverse}"
      end
      assert_empty merge.page(expected.size, 7)
    end
  end

  # Shards of random sizes (some empty) and scores (whole, fractional, runs
  # of one score), pages of random sizes at random offsets, both orders.
  def test_random_shards_pages_anywhere_match_the_merged_order
    rng = Random.new(29)
    shards = QUEUES.map { |queue| [queue, keys.dead_set(queue)] }
    4.times do |trial|
      shards.each { |_, key| cluster.call("DEL", key) }
      QUEUES.each do |queue|
        size = [0, rng.rand(40), rng.rand(1_500)].sample(random: rng)
        put(:dead_set, queue, Array.new(size) { [rng.rand(60), rng.rand * 1_000, 7.25].sample(random: rng) })
      end
      [false, true].each do |reverse|
        expected = merged(:dead_set, reverse: reverse)
        merge = Deckhand::Store::Sets::Merge.new(store, shards, reverse, near: rng.rand(1..20), width: rng.rand(5..60))
        12.times do
          offset = rng.rand(expected.size + 2)
          count = rng.rand(1..30)
          assert_equal expected[offset, count] || [], merge.page(offset, count).map { |queue, raw, _| [queue, raw] },
            "trial #{trial}, offset #{offset}, count #{count}, reverse: #{reverse}"
        end
      end
    end
  end

  def test_one_score_for_every_entry_orders_by_queue_then_bytes
    QUEUES.each { |queue| put(:retry_set, queue, Array.new(300, 42)) }
    expected = merged(:retry_set, reverse: false)
    assert_equal QUEUES, expected.map(&:first).uniq, "whole shards in queue-name order"
    middle = (expected.size / 2 / 25) + 1
    [1, middle, middle + 1, (expected.size / 25)].each do |number|
      assert_equal expected[(number - 1) * 25, 25], page(api.retries, number, 25), "page #{number}"
    end
  end

  def test_pages_of_one_entry_around_the_middle
    rng = Random.new(3)
    QUEUES.each { |queue| put(:retry_set, queue, Array.new(500) { rng.rand(200) }) }
    expected = merged(:retry_set, reverse: false)
    (700..800).each do |number|
      assert_equal [expected[number - 1]], page(api.retries, number, 1), "page #{number} of one entry"
    end
  end

  def test_a_page_of_a_set_with_no_entries_or_past_its_end_is_empty
    QUEUES.each { |queue| put(:retry_set, queue, []) }
    assert_empty api.retries.page(1, 25)
    put(:retry_set, "mail", [1, 2, 3])
    assert_empty api.retries.page(2, 25)
    assert_empty api.retries.page(4, 1)
    assert_equal [["mail", cluster.call("ZRANGE", keys.retry_set("mail"), 2, 2).first]], page(api.retries, 3, 1)
  end

  private

  # [[raw, score], ...] of one shard, however the client shapes WITHSCORES.
  def pairs(key) = Deckhand::Store::Sets::OneSet.pairs(cluster.call("ZRANGE", key, 0, -1, "WITHSCORES"))

  # The scheduled shards' entries, also as dead ones (the same ties, read newest first).
  def copy_scheduled_to_dead
    QUEUES.each do |queue|
      cluster.call("ZADD", keys.dead_set(queue), *pairs(keys.scheduled_set(queue)).flat_map { |raw, score| [score, raw] })
    end
  end
end
