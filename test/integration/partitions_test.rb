# frozen_string_literal: true

require "test_helper"
require "deckhand/api"
require "support/reliability_helpers"

# Partitioned queues in plain mode: pushes spread over the lists, a server
# runs every partition's jobs once, pause and the API see one queue.
class PartitionsTest < Minitest::Test
  include Deckhand::ReliabilityHelpers

  LISTS = %w[queue:default queue:default~p1 queue:default~p2].freeze

  class ByAccountJob
    include Deckhand::Job

    deckhand_options partition_by: ->(args) { args.first }

    def perform(*args) = Deckhand::TestJobs.record([jid, args])
  end

  def setup
    super
    Deckhand.config = partitioned
  end

  def partitioned(**settings)
    new_config(partitions: {"default" => 3}, concurrency: 4, heartbeat_interval: 0.1, scheduler_interval: 0.05, timeout: 2, **settings)
  end

  def sizes = LISTS.map { |list| redis.call("LLEN", list) }

  def args_in(list) = redis.call("LRANGE", list, 0, -1).reverse.map { |raw| JSON.parse(raw)["args"] }

  def test_pushes_go_round_robin_over_the_partitions_and_the_queue_is_named_once
    9.times { |i| RecordJob.perform_async(i) }
    assert_equal [3, 3, 3], sizes
    RecordJob.perform_bulk(Array.new(30) { |i| [i] }) # the bulk fast path deals them out too
    assert_equal [13, 13, 13], sizes
    assert_equal ["default"], redis.call("SMEMBERS", "queues"), "a partition is no queue of its own in plain mode"
    assert_equal "default", JSON.parse(redis.call("LINDEX", "queue:default~p1", 0))["queue"]
  end

  def test_pushes_held_by_a_pusher_until_later_still_spread_and_keep_their_keys
    held = []
    previous = Deckhand::Client.pusher
    Deckhand::Client.pusher = ->(queued, scheduled, config) { held << [queued, scheduled, config] }
    6.times { |i| RecordJob.perform_async(i) }
    2.times { |i| ByAccountJob.perform_async("acct", i) }
    held.each { |queued, scheduled, config| Deckhand::Client.write(queued, scheduled, config) } # after the commit
    assert_equal 8, sizes.sum
    assert_equal [2, 2, 2], LISTS.map { |list| args_in(list).count { |args| args.size == 1 } }
    assert_equal 1, LISTS.count { |list| args_in(list).include?(["acct", 0]) && args_in(list).include?(["acct", 1]) }
  ensure
    Deckhand::Client.pusher = previous
  end

  def test_a_process_without_the_setting_pushes_to_the_queue_itself
    Deckhand.config = new_config
    3.times { |i| RecordJob.perform_async(i) }
    assert_equal [3, 0, 0], sizes
  end

  def test_partition_by_keeps_a_key_s_jobs_in_one_partition_in_order
    %w[a b c d e f].each_with_index { |account, i| 4.times { |n| ByAccountJob.perform_async(account, i * 10 + n) } }
    Deckhand::Client.push("class" => "RecordJob", "args" => ["z"], "partition_by" => "acct-9")
    RecordJob.set(partition_by: "acct-9").perform_async("y")
    by_list = LISTS.map { |list| args_in(list) }
    %w[a b c d e f].each_with_index do |account, i|
      holding = by_list.select { |args| args.any? { |a| a.first == account } }
      assert_equal 1, holding.size, "#{account}'s jobs must share one partition"
      assert_equal (0..3).map { |n| [account, i * 10 + n] }, holding.first.select { |a| a.first == account }, "in push order"
    end
    assert_equal 1, by_list.count { |args| args.include?(["z"]) && args.include?(["y"]) }, "the same key, the same partition"
    refute redis.call("LRANGE", LISTS[0], 0, -1).any? { |raw| raw.include?("partition_by") }, "the key is not stored in the job"
    ByAccountJob.perform_bulk([["a", 100], ["a", 101]])
    assert_equal [["a", 100], ["a", 101]], LISTS.map { |list| args_in(list) }.find { |args| args.include?(["a", 0]) }.last(2)
  end

  def test_bad_settings_name_the_problem_and_the_fix
    error = assert_raises(Deckhand::ConfigError) { new_config(partitions: {"default" => 0}) }
    assert_match(/whole number from 1 to 64/, error.message)
    error = assert_raises(Deckhand::ConfigError) { new_config(partitions: {"a~p1" => 2}) }
    assert_match(/"~" is kept for partitions' names/, error.message)
    error = assert_raises(Deckhand::ConfigError) { new_config(partitions: ["default"]) }
    assert_match(/must be a Hash of queue => number of partitions/, error.message)
    error = assert_raises(Deckhand::ConfigError) { new_config(partitions: {"x" => 2}, throttle: {"x" => {concurrency: 1}}) }
    assert_match(/queue "x": concurrency 1 cannot be split over its 2 partitions .*raise concurrency to at least 2 or use fewer partitions/, error.message)
    assert_equal 2, new_config(partitions: {"x" => 2}, throttle: {"x" => {concurrency: 2}}).throttle["x"].concurrency, "one slot a partition is enough"
    error = assert_raises(Deckhand::ConfigError) { new_config(partitions: {"x" => 2}, fair_queues: {"x" => {by: ->(job) { job["args"].first }}}) }
    assert_match(/both partitioned and a fair queue/, error.message)
    error = assert_raises(Deckhand::InvalidJob) { Deckhand::Client.push("class" => "RecordJob", "args" => [], "queue" => "mail~p2") }
    assert_match(/ends like a partition's list/, error.message)
    error = assert_raises(Deckhand::ConfigError) { Deckhand::API.new.throttle("default").set(concurrency: 2) }
    assert_match(/queue "default": concurrency 2 cannot be split over its 3 partitions .*raise concurrency to at least 3/, error.message)
    error = assert_raises(Deckhand::ConfigError) { Deckhand::API.new.throttle("default~p1").set(concurrency: 5) }
    assert_match(/"default~p1" is a partition of queue "default": throttle "default"/, error.message)
    assert_equal({}, redis.call("HGETALL", "deckhand:throttles"), "nothing stored")
    Deckhand::API.new.throttle("default").set(concurrency: 3, rate: 1)
    assert_equal({"rate" => 1, "per" => 1, "concurrency" => 3}, Deckhand::API.new.throttle("default").limit)
    error = assert_raises(ArgumentError) { Class.new { include Deckhand::Job }.deckhand_options(partition_by: 1.5) }
    assert_match(/partition_by/, error.message)
  end

  def test_a_server_runs_every_partition_s_jobs_exactly_once_and_retries_name_the_queue
    jids = RecordJob.perform_bulk(Array.new(600) { |i| [i] })
    failed = FailJob.set(partition_by: 2).perform_async("boom")
    assert_equal 201, redis.call("LLEN", Deckhand::Config::Partitions.new("default" => 3).route("default", 2).then { |l| "queue:#{l}" })
    with_server do |launcher|
      wait_for(message: "600 jobs") { Deckhand::TestJobs.runs.count { |_, args| args != ["boom"] } >= 600 }
      wait_for(message: "the failure's retry") { redis.call("ZCARD", "retry") == 1 }
      wait_for(message: "acknowledgements") { inflight_payloads(launcher.identity, launcher.config.server_capsules.flat_map(&:queues)).empty? }
    end
    runs = Deckhand::TestJobs.runs.reject { |_, args| args == ["boom"] }
    assert_equal jids.sort, runs.map(&:first).sort
    assert_equal [0, 0, 0], sizes
    retry_job = zset("retry").first.first
    assert_equal [failed, "default"], retry_job.values_at("jid", "queue"), "a retry goes back to the queue, not to the partition's list"
  end

  def test_a_dead_process_s_jobs_go_back_to_their_partitions_and_a_poison_pill_there_is_buried
    wait_for_redis_uptime(1)
    redis.call("SADD", "queues", "default")
    dead_process(queues: %w[default default~p1 default~p2],
      lots: {"default" => [[payload("a")]], "default~p1" => [[payload("pill"), payload("b")]], "default~p2" => [[payload("c")]]},
      recoveries: {"default~p1" => {"pill" => 2}}, suspects: {"default~p1" => ["pill"]})
    assert_equal 1, reaper.reap
    assert_equal [%w[a], %w[b], %w[c]], %w[default default~p1 default~p2].map { |list| queue_jids(list) }
    assert_equal ["pill"], zset("dead").map { |job, _| job["jid"] }, "the pill is buried from its partition's poison hash"
    assert_equal 0, redis.call("HLEN", keys.poison("default~p1"))
    assert_equal ["default"], redis.call("SMEMBERS", "queues"), "jobs handed back name their queue, not the partition"
  end

  def test_pausing_the_queue_pauses_every_partition
    Deckhand.config = partitioned(queues: %w[default low])
    Deckhand::API.new.queue("default").pause
    waiting = Array.new(6) { |i| RecordJob.perform_async(i) }
    with_server do
      marker = RecordJob.set(queue: "low").perform_async("low")
      wait_for(message: "the other queue's job") { Deckhand::TestJobs.runs.any? { |jid, _| jid == marker } }
      assert_equal [2, 2, 2], sizes, "no partition of a paused queue gives a job"
      Deckhand::API.new.queue("default").resume
      wait_for(message: "the resumed queue's jobs") { Deckhand::TestJobs.runs.size == 7 }
    end
    assert_equal waiting.sort, (Deckhand::TestJobs.runs.map(&:first) - [Deckhand::TestJobs.runs.find { |_, a| a == ["low"] }.first]).sort
  end

  def test_the_api_shows_the_queue_once_its_size_the_sum_its_latency_the_oldest_head
    now = Time.now.to_f
    LISTS.each_with_index do |list, i|
      2.times do |n|
        job = {"class" => "RecordJob", "args" => [i, n], "jid" => "j#{i}#{n}", "queue" => "default", "enqueued_at" => now - 100 + (i * 10) + n}
        redis.call("LPUSH", list, JSON.generate(job))
      end
    end
    redis.call("SADD", "queues", "default")
    api = Deckhand::API.new
    queues = api.queues
    assert_equal ["default"], queues.map(&:name)
    assert_equal 6, queues.first.size
    assert_equal %w[default default~p1 default~p2], queues.first.partitions.map(&:name)
    queue = api.queue("default")
    assert_equal 6, queue.size
    assert_equal 6, api.stats.enqueued, "every partition's jobs count as enqueued"
    assert_in_delta 100, queue.latency(Time.at(now)), 0.01
    assert_equal [2, 2, 2], queue.partitions.map(&:size)
    assert_equal %w[j00 j01 j10 j11 j20 j21], queue.jobs(page: 1, per_page: 10).map(&:jid)
    assert_equal %w[j11 j20 j21], queue.jobs(page: 2, per_page: 3).map(&:jid)
    assert_equal "default~p2", queue.jobs(page: 3, per_page: 2).first.list
    assert queue.delete_job("j21", position: 1)
    assert_equal 5, api.queue("default").size
    queue.clear
    assert_equal [0, 0, 0], sizes
  end
end
