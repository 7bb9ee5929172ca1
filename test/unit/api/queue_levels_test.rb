# frozen_string_literal: true

require "test_helper"
require "deckhand/api"

# A queue's jobs waiting at priority levels (docs/priority.md) are listed
# with its own, in the order a fetch takes them, each with its level, and
# each can be deleted from its level's list; the jobs of a paused class held
# aside in the queue are counted per class.
class QueueLevelsApiTest < Minitest::Test
  def api = Deckhand::API.new(Deckhand.config)

  def push(arg, priority: nil, queue: "default")
    Deckhand::Client.push("class" => "RecordJob", "args" => [arg], "queue" => queue, "priority" => priority)
  end

  def test_jobs_at_levels_are_listed_in_the_fetch_s_order_with_their_level
    push("own 1")
    push("late", priority: 5)
    push("urgent", priority: -10)
    push("own 2")
    push("soon", priority: -1)
    push("urgent 2", priority: -10)
    queue = api.queue("default")
    assert_equal 6, queue.size
    jobs = queue.jobs
    assert_equal ["urgent", "urgent 2", "soon", "own 1", "own 2", "late"], jobs.map { |job| job.args.first }
    assert_equal [-10, -10, -1, nil, nil, 5], jobs.map(&:level)
    assert_equal (0..5).to_a, jobs.map(&:rank)
    assert_equal [0, 1, 0, 0, 1, 0], jobs.map(&:position), "each one's place in its own list"
    assert_equal jobs.first.raw, Deckhand::Store::Jobs::Queues.oldest(Deckhand.config.store, "default"), "the latency's job is listed first"
  end

  def test_pages_run_across_the_levels
    5.times { |i| push("r#{i}", priority: -3) }
    5.times { |i| push("o#{i}") }
    5.times { |i| push("l#{i}", priority: 7) }
    queue = api.queue("default")
    pages = (1..4).map { |page| queue.jobs(page: page, per_page: 4).map { |job| job.args.first } }
    assert_equal [%w[r0 r1 r2 r3], %w[r4 o0 o1 o2], %w[o3 o4 l0 l1], %w[l2 l3 l4]], pages
    assert_equal [4, 5, 6, 7], queue.jobs(page: 2, per_page: 4).map(&:rank)
  end

  def test_a_job_at_a_level_is_deleted_from_its_level_s_list_only
    keep = push("keep", priority: -2)
    gone = push("gone", priority: -2)
    own = push("own")
    queue = api.queue("default")
    job = queue.jobs.find { |found| found.jid == gone }
    refute queue.delete_job(gone, position: job.position), "not in the queue's own list"
    assert queue.delete_job(gone, position: job.position, level: job.level)
    assert_equal [keep, own], api.queue("default").jobs.map(&:jid)
    assert_equal 1, redis.call("LLEN", "queue:default~r-2")
    entry = api.queue("default").jobs.first
    assert api.queue("default").delete_entry(entry.digest, position: entry.position, level: entry.level)
    assert_equal [own], api.queue("default").jobs.map(&:jid)
  end

  def test_a_partitioned_queue_lists_each_level_partition_by_partition
    Deckhand.config = new_config(partitions: {"hot" => 2})
    jids = Array.new(4) { |i| push("r#{i}", priority: -1, queue: "hot") } + Array.new(2) { |i| push("o#{i}", queue: "hot") }
    jobs = api.queue("hot").jobs
    assert_equal jids.sort, jobs.map(&:jid).sort
    assert_equal [-1, -1, -1, -1, nil, nil], jobs.map(&:level)
    assert_equal %w[hot hot hot~p1 hot~p1], jobs.first(4).map(&:list), "each level's partitions in their order"
  end

  def test_held_counts_the_jobs_of_each_paused_class_held_in_the_queue
    api.class_pauses.pause("ReportJob")
    api.class_pauses.pause("OtherJob")
    redis.call("SADD", "queues", "default")
    2.times { |i| redis.call("ZADD", "deckhand:held:default:ReportJob", i, JSON.generate("class" => "ReportJob", "jid" => "h#{i}")) }
    assert_equal({"ReportJob" => 2}, api.queue("default").held)
    assert_equal({}, api.queue("other").held)
  end
end
