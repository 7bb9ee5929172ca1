# frozen_string_literal: true

# Runs in a drop-in child over the test cluster (test/cluster/sidekiq_api_test.rb
# starts it with REDIS_URL listing the nodes; the parent flushed the cluster):
# Sidekiq's set, queue and process APIs through Deckhand's data API.
require "minitest/autorun"
require "json"
require "sidekiq"
require "sidekiq/api"

class ClusterSidekiqApiInsideTest < Minitest::Test
  QUEUES = %w[default mail billing].freeze # one on each primary

  def store = Deckhand.config.store

  def keys = store.layout

  def setup
    api = Deckhand::API.new
    [api.retries, api.scheduled, api.dead].each(&:delete_all)
    QUEUES.each { |queue| api.queue(queue).clear }
  end

  def put(set, queue, jid, score)
    store.call("SADD", keys::QUEUES, queue)
    job = {"class" => "HardJob", "args" => [jid], "jid" => jid, "queue" => queue, "retry" => true, "retry_count" => 1,
           "error_class" => "KeyError", "error_message" => "boom"}
    store.call("ZADD", keys.public_send(set, queue), score, JSON.generate(job))
  end

  def spread(set, count)
    (0...count).map { |i| format("j%03d", i).tap { |jid| put(set, QUEUES[i % 3], jid, 1000 + i) } }
  end

  def test_cluster_mode_is_on
    assert_predicate store, :cluster?
  end

  def test_retry_set_counts_iterates_finds_and_acts_across_shards
    jids = spread(:retry_set, 250)
    retries = Sidekiq::RetrySet.new
    assert_equal 250, retries.size
    assert_equal jids.reverse, retries.map(&:jid), "each: every entry once, highest score first across the queues, as Sidekiq's"
    job = retries.find_job("j004")
    assert_equal ["mail", 1004.0], [job.queue, job.score]
    assert job.retry
    assert_equal ["j004"], Sidekiq::Queue.new("mail").map(&:jid)
    assert retries.find_job("j005").delete
    assert retries.find_job("j008").kill
    assert_equal 1, Sidekiq::DeadSet.new.size
    assert_equal 1, store.call("ZCARD", keys.dead_set("billing")), "killed into its queue's dead set"
    assert_equal 247, Sidekiq::RetrySet.new.size
    assert_equal 247, retries.retry_all
    assert_equal [84, 83, 81], QUEUES.map { |queue| Sidekiq::Queue.new(queue).size }, "84, 83 and 83 spread; j004 retried, j005 and j008 gone"
  end

  def test_scheduled_and_dead_sets_scan_clear_and_kill_all
    spread(:scheduled_set, 9)
    assert_equal %w[j007], Sidekiq::ScheduledSet.new.scan("j007").map(&:jid)
    assert_equal 9, Sidekiq::ScheduledSet.new.kill_all
    dead = Sidekiq::DeadSet.new.to_a
    assert_equal 9, dead.map(&:jid).uniq.size
    assert_equal dead.map(&:score).sort.reverse, dead.map(&:score), "the dead: newest first"
    assert_equal 9, Sidekiq::DeadSet.new.clear
    assert_equal 0, Sidekiq::DeadSet.new.size
  end

  def test_fetch_reschedule_schedule_and_dead_set_kill_act_on_each_queues_shard
    spread(:retry_set, 6)
    retries = Sidekiq::RetrySet.new
    assert_equal %w[j001 j002 j003], retries.fetch(1001.0..1003.0).map(&:jid)
    assert_equal %w[j004], retries.fetch(1004.0, "j004").map(&:jid)
    assert retries.fetch(1004.0, "j004").first.reschedule(2000.0)
    assert_equal 1, store.call("ZCOUNT", keys.retry_set("mail"), 2000, 2000), "rescored in its queue's shard"
    assert retries.schedule(3000.0, {"class" => "HardJob", "args" => [], "jid" => "new", "queue" => "billing"})
    assert_equal "new", JSON.parse(store.call("ZRANGE", keys.retry_set("billing"), 3000, 3000, "BYSCORE").first)["jid"]
    Sidekiq::DeadSet.new.kill(JSON.generate("class" => "HardJob", "args" => [], "jid" => "gone", "queue" => "default"), notify_failure: false)
    assert_equal 1, store.call("ZCARD", keys.dead_set("default"))
    assert_equal ["gone"], Sidekiq::DeadSet.new.map(&:jid)
  end

  def test_queues_list_find_and_delete_jobs
    QUEUES.each_with_index do |queue, i|
      store.call("SADD", keys::QUEUES, queue)
      store.call("LPUSH", keys.queue(queue), JSON.generate("class" => "HardJob", "args" => [i], "jid" => "q#{i}", "queue" => queue))
    end
    assert_equal QUEUES.sort, Sidekiq::Queue.all.map(&:name)
    assert Sidekiq::Queue.new("billing").find_job("q2").delete
    assert_equal 0, Sidekiq::Queue.new("billing").size
    Sidekiq::Queue.new("mail").clear
    assert_equal %w[billing default], Sidekiq::Queue.all.map(&:name)
  end

  def test_process_set_reads_the_fleets_records
    info = JSON.generate("hostname" => "box", "pid" => 7, "concurrency" => 5, "queues" => QUEUES, "tag" => "app")
    store.pipelined do |pipe|
      Deckhand::Store::Records::ProcessRecord.write(pipe, keys, "box:7:abc", info: info, running: {}, inflight: 0, rtt_us: 100,
        quiet: false, rss_kb: 1000, ttl: 60)
    end
    processes = Sidekiq::ProcessSet.new
    assert_equal 1, processes.size
    assert_equal 5, processes.total_concurrency
    assert_equal ["box:7:abc"], processes.map(&:identity)
  end
end
