# frozen_string_literal: true

require "test_helper"

# A push's outcome is its jobs' writes: the set of queue names ("queues") is
# bookkeeping, written after the jobs. With that set of the wrong type a
# push returns (its jobs are queued: raising would have the application push
# them again, twice queued) and warns, naming the key and the fix; a push
# whose job Redis refused raises.
class PushListingTest < Minitest::Test
  class ListedJob
    include Deckhand::Job

    def perform = nil
  end

  def setup
    super
    @log = StringIO.new
    Deckhand.config.logger = Logger.new(@log)
  end

  def test_a_push_returns_when_the_set_of_queues_refuses_its_queue
    redis.call("SET", "queues", "not a set")
    jid = ListedJob.perform_async(1)
    assert_equal [jid], jobs_in("default").map { |job| job["jid"] }
    assert_equal "string", redis.call("TYPE", "queues"), "the key is the user's to fix"
    assert_match(/a push.s jobs were queued, but Redis refused to list their queue .*key "queues".*WRONGTYPE.*do not push them again.*RENAME or DEL/m, @log.string)
  end

  def test_a_bulk_push_returns_every_jid_queued
    redis.call("SET", "queues", "not a set")
    jids = Deckhand::Client.push_bulk("class" => ListedJob, "args" => [[1], [2], [3]])
    assert_equal jids.sort, jobs_in("default").map { |job| job["jid"] }.sort
    jids = Deckhand::Client.push_bulk("class" => ListedJob, "args" => [[4], [5]], "at" => [Time.now.to_f - 1, Time.now.to_f + 60])
    assert_equal 4, redis.call("LLEN", "queue:default")
    assert_equal [jids.last], zset("schedule").map { |job, _| job["jid"] }
  end

  def test_the_warning_comes_once_a_minute_at_most
    redis.call("SET", "queues", "not a set")
    3.times { |i| ListedJob.perform_async(i) }
    assert_equal 3, redis.call("LLEN", "queue:default")
    assert_equal 1, @log.string.scan("refused to list their queue").size
  end

  def test_a_refused_job_raises
    redis.call("SET", "queue:default", "not a list")
    error = assert_raises(Deckhand::CommandError) { ListedJob.perform_async(1) }
    assert_equal "WRONGTYPE", error.code
    assert_equal "queue:default", error.key
  end

  def test_the_queue_is_listed_after_the_key_is_fixed
    redis.call("SET", "queues", "not a set")
    ListedJob.perform_async(1)
    redis.call("DEL", "queues")
    ListedJob.perform_async(2)
    assert_equal ["default"], redis.call("SMEMBERS", "queues")
    assert_equal 2, redis.call("LLEN", "queue:default")
  end

  # Jobs of several queues in one round trip (a batch's jobs, a partitioned
  # queue's lists): the set of queues comes last, once, so its refusal stops
  # nothing.
  def test_several_queues_are_written_before_their_names
    redis.call("SET", "queues", "not a set")
    jobs = %w[a b].to_h { |q| [q, [JSON.generate(Deckhand::Payload.normalize({"class" => "ListedJob", "args" => [], "queue" => q}))]] }
    Deckhand::Client.write(jobs, [], Deckhand.config)
    assert_equal [1, 1], %w[a b].map { |q| redis.call("LLEN", "queue:#{q}") }
  end

  # The scheduler's move of due jobs (schedule.lua): the queue gets them
  # whatever the set of queues holds, the set is left as it is, and the
  # scheduler warns.
  def test_due_scheduled_and_retried_jobs_reach_their_queue
    redis.call("SET", "queues", "not a set")
    scheduled = JSON.generate({"class" => "ListedJob", "args" => [1], "jid" => "s1", "queue" => "default"})
    retried = JSON.generate({"class" => "ListedJob", "args" => [2], "jid" => "r1", "queue" => "default", "enqueued_at" => 1})
    redis.call("ZADD", "schedule", 1, scheduled)
    redis.call("ZADD", "retry", 1, retried)
    scheduler = Deckhand::Server::Chores::Scheduler.new(config: Deckhand.config, store: Deckhand.config.store, process_count: -> { 1 })
    moved, corrupt, _, unlisted = scheduler.enqueue_due
    assert_equal [2, 0, true], [moved, corrupt, unlisted]
    assert_equal %w[r1 s1], jobs_in("default").map { |job| job["jid"] }.sort
    assert_equal 0, redis.call("ZCARD", "schedule") + redis.call("ZCARD", "retry")
    assert_equal "string", redis.call("TYPE", "queues")
    assert_match(/due scheduled and retried jobs were queued, but Redis refused to list their queue .*"queues"/, @log.string)

    redis.call("DEL", "queues")
    redis.call("ZADD", "schedule", 1, scheduled.sub("s1", "s2"))
    assert_equal [1, 0, false], scheduler.enqueue_due.values_at(0, 1, 3)
    assert_equal ["default"], redis.call("SMEMBERS", "queues")
  end

  # A passing refusal (CLUSTERDOWN in a failover comes out as a
  # ConnectionError) is no key to fix: the warning says the next pushes list
  # the queue.
  def test_a_passing_refusal_names_no_key_fix
    warning = Deckhand::Store::Jobs::ListingWarning.new("queues")
    warning.refused(Deckhand::ConnectionError.new("CLUSTERDOWN The cluster is down"), Deckhand.config.logger)
    assert_match(/CLUSTERDOWN.*the next pushes to the queue list it once Redis takes writes/, @log.string)
    refute_match(/RENAME or DEL/, @log.string)
  end
end
