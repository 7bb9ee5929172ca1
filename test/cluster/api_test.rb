# frozen_string_literal: true

require "test_helper"
require "deckhand/api"
require_relative "../support/cluster_helpers"

# The data API over cluster mode: the schedule, retry and dead sets are one
# sorted set per queue, on the primaries those queues live on.
class ClusterAPITest < Minitest::Test
  include Deckhand::ClusterHelpers

  QUEUES = %w[default mail billing].freeze # one on each primary ("reports" shares default's)

  def api = Deckhand::API.new(Deckhand.config)

  # Error classes E0, E1, E2 spread over the queues: j00 E0, j01 E1, j02 E2, j03 E1, ...
  def job(jid, queue, **extra)
    {"class" => "RecordJob", "args" => [jid], "jid" => jid, "queue" => queue, "retry" => true, "retry_count" => 3,
     "error_class" => "E#{error_of(jid[1..].to_i)}"}.merge(extra)
  end

  def error_of(n) = (n + (n / 3)) % 3

  # Puts entries straight into a queue's shard, the queue named in the set of queues.
  def put(set, queue, job, score)
    cluster.call("SADD", keys::QUEUES, queue)
    cluster.call("ZADD", keys.public_send(set, queue), score, JSON.generate(job))
  end

  # 30 retries over the three queues, interleaved by score: j00 at 1000 in
  # "default", j01 at 1001 in "mail", j02 in "billing", ...
  def spread(set = :retry_set, count: 30)
    (0...count).map do |i|
      jid = format("j%02d", i)
      put(set, QUEUES[i % 3], job(jid, QUEUES[i % 3]), 1000 + i)
      jid
    end
  end

  def test_the_queues_sit_on_different_primaries
    ports = QUEUES.map { |queue| Deckhand::RedisClusterHarness.cluster.primary_for(keys.queue(queue)).port }
    assert_equal 3, ports.uniq.size, "these tests want their shards on three primaries"
  end

  def test_size_sums_the_shards_and_pages_merge_them_in_score_order
    jids = spread
    assert_equal 30, api.retries.size
    assert_equal jids.first(4), api.retries.page(1, 4).map(&:jid)
    assert_equal jids[4, 4], api.retries.page(2, 4).map(&:jid)
    assert_equal [4, 5, 6, 7], api.retries.page(2, 4).map(&:rank)
    assert_equal %w[mail billing default mail], api.retries.page(2, 4).map(&:shard)
    assert_equal jids.last(2), api.retries.page(8, 4).map(&:jid), "the last page, read from the end of each shard"
    assert_empty api.retries.page(9, 4)
  end

  def test_every_page_from_either_end_is_a_slice_of_the_merged_order
    jids = spread(:dead_set, count: 23)
    newest_first = jids.reverse
    (1..5).each do |number|
      assert_equal newest_first[(number - 1) * 5, 5], api.dead.page(number, 5).map(&:jid), "page #{number} of the dead set"
    end
  end

  def test_equal_scores_in_different_shards_keep_one_order_on_every_page
    QUEUES.each { |queue| 4.times { |i| put(:scheduled_set, queue, job("#{queue}-#{i}", queue), 7) } }
    pages = (1..4).flat_map { |number| api.scheduled.page(number, 3).map(&:jid) }
    assert_equal 12, pages.uniq.size, "each entry on exactly one page"
  end

  def test_fetch_and_find_jid_look_in_every_shard
    spread
    entry = api.retries.find_jid("j29")
    assert_equal "billing", entry.shard
    assert_equal entry.raw, api.retries.fetch(entry.key).raw
    assert_equal "billing", api.retries.fetch(entry.key).shard
    assert_nil api.retries.find_jid("nope")
    assert_nil api.retries.fetch("1.0-nope")
  end

  def test_retry_sends_each_entry_back_to_the_queue_of_its_shard
    spread
    entries = api.retries.page(1, 3) # one from each queue
    assert_equal 3, api.retries.retry(entries)
    QUEUES.each_with_index do |queue, i|
      assert_equal [format("j%02d", i)], jobs_in(queue).map { |j| j["jid"] }
      assert_equal 2, jobs_in(queue).first["retry_count"], "a retry by hand does not use one up"
    end
    assert_equal 27, api.retries.size
    assert_equal 0, api.retries.retry(entries), "already gone: nothing queued twice"
  end

  def test_an_entry_goes_back_to_its_shards_queue_whatever_its_payload_says
    put(:retry_set, "mail", job("odd", "default"), 5)
    assert_equal 1, api.retries.retry(api.retries.page(1, 1))
    assert_equal ["odd"], jobs_in("mail").map { |j| j["jid"] }, "one slot: the mail shard's own queue"
    assert_empty jobs_in("default")
  end

  def test_delete_removes_entries_from_their_shards
    spread
    assert_equal 4, api.retries.delete(api.retries.page(1, 4))
    assert_equal 26, api.retries.size
    assert_equal 8, cluster.call("ZCARD", keys.retry_set("default")), "j00 and j03 were default's"
  end

  def test_kill_moves_each_entry_to_the_dead_set_of_its_queue_and_releases_its_lock
    heard = []
    Deckhand.config.on_death { |job, error| heard << [job["jid"], error.class] }
    put(:retry_set, "mail", job("m1", "mail", "unique_for" => 600, "unique_key" => "unique:m1"), 5)
    put(:retry_set, "billing", job("r1", "billing"), 6)
    cluster.call("SET", "unique:m1", "m1", "EX", 600)
    assert_equal 2, api.retries.kill(api.retries.page(1, 2))
    assert_equal ["m1"], cluster.call("ZRANGE", keys.dead_set("mail"), 0, -1).map { |raw| JSON.parse(raw)["jid"] }
    assert_equal ["r1"], cluster.call("ZRANGE", keys.dead_set("billing"), 0, -1).map { |raw| JSON.parse(raw)["jid"] }
    assert_nil cluster.call("GET", "unique:m1"), "a death releases the job's unique lock"
    assert_equal [["m1", Deckhand::KilledByHand], ["r1", Deckhand::KilledByHand]], heard.sort
    assert_equal %w[r1 m1], api.dead.page(1, 5).map(&:jid).sort.reverse
  end

  def test_kill_releases_a_lock_in_the_cluster_layout
    job = job("m2", "mail", "unique_for" => 600)
    lock = Deckhand::Unique.key(job, keys)
    assert lock.start_with?("#{keys.tag("mail")}:unique:"), lock
    put(:scheduled_set, "mail", job, 5)
    cluster.call("SET", lock, "m2", "EX", 600)
    assert_equal 1, api.scheduled.kill_all
    assert_nil cluster.call("GET", lock)
  end

  def test_retry_all_kill_all_and_delete_all_cover_every_shard
    spread(:scheduled_set)
    put(:scheduled_set, "mail", job("x", "mail"), 1)
    cluster.call("ZADD", keys.scheduled_set("mail"), 2, "garbage")
    assert_equal 32, api.scheduled.kill_all, "every entry, the one that is no job too"
    assert_equal 0, api.scheduled.size
    assert_equal 31, api.dead.retry_all
    assert_equal 10, cluster.call("LLEN", keys.queue("billing"))
    assert_equal ["garbage"], cluster.call("ZRANGE", keys.dead_set("mail"), 0, -1), "not a job: it stays"
    assert_equal 1, api.dead.delete_all
    assert_equal 0, api.dead.size
  end

  def test_filter_resumes_across_the_shards_and_counts_match_it
    spread
    found = []
    from = 0
    steps = 0
    while from
      batch, from = api.retries.filter("E1", from: from, limit: 2, budget: 4)
      found.concat(batch)
      steps += 1
    end
    expected = (0...30).select { |i| error_of(i) == 1 }.map { |i| format("j%02d", i) }
    assert_equal expected.sort, found.map(&:jid).sort
    assert_equal QUEUES.sort, found.map(&:shard).uniq.sort
    assert_operator steps, :>, 3, "a small budget takes several steps"
    assert_equal 10, api.retries.count_matching("E1")
    assert_equal expected, found.sort_by(&:score).map(&:jid)
  end

  def test_matching_actions_and_groups_cover_every_shard
    spread
    groups = api.retries.groups(budget: nil)
    assert_predicate groups, :complete?
    assert_equal({"E0" => 10, "E1" => 10, "E2" => 10}, groups.errors.to_h { |g| [g.name, g.count] })
    assert_equal 30, groups.classes.first.count
    partial = api.retries.groups(budget: 12)
    assert_equal 12, partial.examined
    refute_predicate partial, :complete?
    assert_equal 10, api.retries.delete_matching("\"error_class\":\"E2\"")
    assert_equal 10, api.retries.retry_matching("E1")
    assert_equal 10, api.retries.kill_matching("E0")
    assert_equal 0, api.retries.size
    assert_equal 10, api.dead.size
  end

  def test_the_error_by_class_table_and_combined_filters_cover_every_shard
    30.times do |i|
      queue = QUEUES[i % 3]
      put(:retry_set, queue, job(format("j%02d", i), queue, "class" => (i.even? ? "EvenJob" : "OddJob"), "failed_at" => 5000.5 + i), 1000 + i)
    end
    cells = api.retries.groups(budget: nil).cells
    even = cells.fetch("E0").find { |c| c.job_class == "EvenJob" }
    expected = (0...30).select { |i| i.even? && error_of(i) == 0 }
    assert_equal [expected.size, Time.at(5000.5 + expected.min), Time.at(5000.5 + expected.max)], [even.count, even.first_at, even.last_at]
    assert_equal expected.size, api.retries.count_matching(even.filter.texts)
    assert_equal expected.map { |i| format("j%02d", i) }.sort, api.retries.filter(even.filter.texts, limit: 30).first.map(&:jid).sort
    assert_equal expected.size, api.retries.retry_matching(even.filter.texts)
    assert_equal 30 - expected.size, api.retries.size
  end

  def test_scripts_redis_lost_are_sent_again_on_every_shard
    spread
    Deckhand::RedisClusterHarness.cluster.primaries.each do |node|
      conn = RedisClient.new(url: node.url)
      conn.call("SCRIPT", "FLUSH")
    ensure
      conn&.close
    end
    assert_equal 10, api.retries.count_matching("E1"), "one pipelined call per shard, each answered NOSCRIPT first"
    assert_equal 3, api.retries.retry(api.retries.page(1, 3))
  end

  def test_a_set_with_no_known_queue_is_empty
    assert_equal 0, api.retries.size
    assert_empty api.retries.page(1, 25)
    assert_equal [[], nil], api.retries.filter("x")
    assert_equal 0, api.retries.count_matching("x")
    assert_equal 0, api.retries.delete_all
    assert_nil api.retries.key
  end

  # A plugin's own sorted set is one key in a slot of its own: read and
  # deleted; retrying or killing its entries would move them across slots,
  # so it is refused, nothing moved.
  def test_a_named_set_is_read_and_deleted_and_refuses_to_move_its_entries
    %w[j1 j2].each_with_index { |jid, i| cluster.call("ZADD", "failed", 1000 + i, JSON.generate(job(jid, "mail"))) }
    failed = api.job_set("failed")
    assert_equal [2, %w[j1 j2]], [failed.size, failed.page(1, 5).map(&:jid)]
    error = assert_raises(ArgumentError) { failed.retry(failed.page(1, 1)) }
    assert_match(/sorted set "failed" cannot be retried in cluster mode: its key is in a slot of its own/, error.message)
    assert_raises(ArgumentError) { failed.kill(failed.page(1, 1)) }
    assert_equal 2, failed.size
    assert_equal 1, failed.delete(failed.page(1, 1))
    assert_equal %w[j2], failed.each_entry.map(&:jid)
  end
end
