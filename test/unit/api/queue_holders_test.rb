# frozen_string_literal: true

require "test_helper"
require "deckhand/api"

# The classes holding a queue: those running now (the work records Busy
# reads) and those of a bounded sample of its head, each with its share.
class QueueHoldersApiTest < Minitest::Test
  def api = Deckhand::API.new(Deckhand.config)

  def push(klass, n, queue: "reports")
    Deckhand::Client.push_bulk("class" => klass, "args" => (1..n).to_a.zip, "queue" => queue)
  end

  # A live process whose threads run these [class, queue, run_at] jobs.
  def running(identity, jobs)
    redis.call("SADD", "processes", identity)
    redis.call("HSET", identity, "info", JSON.generate("queues" => %w[reports default]), "busy", jobs.size.to_s, "beat", Time.now.to_f.to_s)
    jobs.each_with_index do |(klass, queue, run_at), i|
      redis.call("HSET", "#{identity}:work", "t#{i}", JSON.generate("queue" => queue, "payload" => {"class" => klass, "jid" => "j#{i}", "args" => []}, "run_at" => run_at))
    end
  end

  def test_names_the_running_classes_with_their_share_and_longest_run
    now = api.now.to_f
    running("h:1:a", [["ReportJob", "reports", now - 400]] * 8 + [["ReportJob", "reports", now - 30], ["MailJob", "reports", now - 5], ["OtherJob", "default", now - 999]])
    push("ReportJob", 14)
    holders = api.queue("reports").holders
    report, mail = holders.list
    assert_equal ["ReportJob", 9, 0.9, 14, 1.0], [report.name, report.running, report.running_share, report.waiting, report.waiting_share]
    assert_in_delta 400, report.running_for, 5
    assert_equal ["MailJob", 1, 0.1, 0], [mail.name, mail.running, mail.running_share, mail.waiting]
    assert_equal 10, holders.running_total, "the default queue's job is not this queue's"
    assert_equal [14, false], [holders.sampled, holders.sample?]
  end

  def test_the_waiting_side_is_a_sample_of_the_head_and_says_so
    push("SlowJob", 30)
    push("FastJob", 20) # pushed after: runs after the SlowJobs
    holders = api.queue("reports").holders(sample: 25, running: [])
    assert_equal [25, true], [holders.sampled, holders.sample?]
    assert_equal [["SlowJob", 25, 1.0]], holders.waiting.map { |h| [h.name, h.waiting, h.waiting_share] }, "the next 25 to run"
    whole = api.queue("reports").holders(sample: 100, running: [])
    assert_equal [["SlowJob", 30], ["FastJob", 20]], whole.waiting.map { |h| [h.name, h.waiting] }
    assert_equal [0.6, 0.4], whole.waiting.map(&:waiting_share)
    refute whole.sample?
  end

  def test_reads_a_huge_queue_no_further_than_its_sample
    redis.call("LPUSH", "queue:huge", *Array.new(5_000) { |i| JSON.generate("class" => "BulkJob", "jid" => "j#{i}", "args" => [i]) })
    redis.call("SADD", "queues", "huge")
    holders = api.queue("huge").holders(running: [])
    assert_equal [1_000, true], [holders.sampled, holders.sample?]
    assert_equal [["BulkJob", 1_000]], holders.waiting.map { |h| [h.name, h.waiting] }
  end

  def test_the_oldest_waiting_job_of_each_class_and_what_is_not_a_job
    now = api.now.to_f
    redis.call("LPUSH", "queue:reports", JSON.generate("class" => "ReportJob", "jid" => "a", "enqueued_at" => now - 360))
    redis.call("LPUSH", "queue:reports", "not json at all")
    redis.call("SADD", "queues", "reports")
    holders = api.queue("reports").holders(running: [])
    assert_equal ["(not a job)", "ReportJob"], holders.list.map(&:name).sort
    assert_in_delta 360, holders.list.find { |h| h.name == "ReportJob" }.waiting_for, 5
  end

  def test_every_queue_at_once_for_the_list
    push("ReportJob", 3)
    push("MailJob", 2, queue: "default")
    running("h:1:a", [["ReportJob", "reports", api.now.to_f - 60]])
    all = api.queue_holders(api.queues)
    assert_equal %w[default reports], all.keys.sort
    assert_equal [["MailJob", 0, 2]], all["default"].list.map { |h| [h.name, h.running, h.waiting] }
    assert_equal [["ReportJob", 1, 3]], all["reports"].list.map { |h| [h.name, h.running, h.waiting] }
  end

  def test_a_partitioned_queue_counts_its_partitions_jobs_and_runs
    config = Deckhand::Config.new(redis: {url: Deckhand::RedisHarness.url}, partitions: {"events" => 2})
    redis.call("LPUSH", "queue:events", JSON.generate("class" => "EventJob", "jid" => "a"))
    redis.call("LPUSH", "queue:events~p1", JSON.generate("class" => "EventJob", "jid" => "b"))
    redis.call("SADD", "queues", "events", "events~p1")
    running("h:1:a", [["EventJob", "events~p1", api.now.to_f]])
    holders = Deckhand::API.new(config).queue("events").holders
    assert_equal [["EventJob", 1, 2]], holders.list.map { |h| [h.name, h.running, h.waiting] }
  end
end
