# frozen_string_literal: true

require "test_helper"
require "deckhand/api"

# Client.cancel takes a waiting job out of wherever it waits (a queue, a
# partition, the schedule, retry and dead sets), records it as cancelled, and
# it never runs; the other jobs stay as they were, byte for byte.
class CancelWaitingTest < Minitest::Test
  def setup
    super
    Deckhand::TestJobs.reset
    Deckhand.config = new_config(heartbeat_interval: 0.2)
  end

  def cancelled(jid) = Deckhand::API.new.cancellation(jid)

  def raw_queue(name) = redis.call("LRANGE", "queue:#{name}", 0, -1)

  def test_a_queued_job_is_removed_and_recorded_and_its_neighbours_kept_byte_for_byte
    before = RecordJob.perform_async("before", "é\u0000")
    jid = RecordJob.perform_async("cancel me")
    after = RecordJob.perform_async("after")
    kept = raw_queue("default").reject { |raw| raw.include?(jid) }

    assert_equal :removed_from_queue, Deckhand::Client.cancel(jid)

    assert_equal kept, raw_queue("default")
    record = cancelled(jid)
    assert_equal ["RecordJob", "default", "queue"], [record.job_class, record.queue, record.where]
    assert_in_delta Time.now.to_f, record.at.to_f, 5
    assert_nil redis.call("GET", "deckhand:cancel:#{jid}"), "the mark goes with the job"
    with_server do
      wait_for(message: "the other jobs run") { Deckhand::TestJobs.runs.size == 2 }
    end
    assert_equal [before, after].sort, Deckhand::TestJobs.runs.map(&:first).sort, "the cancelled job never ran"
  end

  def test_a_job_in_a_later_page_of_a_long_queue_is_found
    jid = RecordJob.perform_async("deep")
    Deckhand::Client.push_bulk("class" => "RecordJob", "args" => Array.new(2_500) { |i| [i] })
    assert_equal :removed_from_queue, Deckhand::Client.cancel(jid)
    assert_equal 2_500, redis.call("LLEN", "queue:default")
  end

  def test_a_job_in_a_partition_of_a_partitioned_queue_is_found
    Deckhand.config = new_config(partitions: {"hot" => 3})
    jids = Array.new(6) { |i| RecordJob.set(queue: "hot").perform_async(i) }
    lists = %w[hot hot~p1 hot~p2].select { |list| redis.call("LLEN", "queue:#{list}").positive? }
    assert_operator lists.size, :>, 1, "the jobs spread over the partitions"
    jids.each { |jid| assert_equal :removed_from_queue, Deckhand::Client.cancel(jid) }
    assert_equal [0, 0, 0], %w[hot hot~p1 hot~p2].map { |list| redis.call("LLEN", "queue:#{list}") }
  end

  def test_a_scheduled_job_is_removed_from_the_schedule
    jid = RecordJob.perform_in(3600, 1)
    other = RecordJob.perform_in(3600, 2)
    assert_equal :removed_from_schedule, Deckhand::Client.cancel(jid)
    assert_equal [other], zset("schedule").map { |job, _| job["jid"] }
    assert_equal "schedule", cancelled(jid).where
  end

  def test_a_retrying_job_is_removed_from_the_retries
    raw = JSON.generate("class" => "RecordJob", "args" => [1], "jid" => "r" * 24, "queue" => "default", "retry_count" => 0)
    redis.call("ZADD", "retry", Time.now.to_f + 600, raw)
    assert_equal :removed_from_retries, Deckhand::Client.cancel("r" * 24)
    assert_equal 0, redis.call("ZCARD", "retry")
    assert_equal "retry", cancelled("r" * 24).where
  end

  def test_a_dead_job_is_removed_from_the_dead_set
    raw = JSON.generate("class" => "RecordJob", "args" => [1], "jid" => "d" * 24, "queue" => "default")
    redis.call("ZADD", "dead", Time.now.to_f, raw)
    assert_equal :removed_from_dead, Deckhand::Client.cancel("d" * 24)
    assert_equal 0, redis.call("ZCARD", "dead")
    assert_equal "dead", cancelled("d" * 24).where
  end

  def test_an_unknown_jid_is_not_found_and_a_bad_one_is_refused
    assert_equal :not_found, Deckhand::Client.cancel("0" * 24)
    assert_nil cancelled("0" * 24)
    error = assert_raises(ArgumentError) { Deckhand::Client.cancel("") }
    assert_match(/needs a job's jid/, error.message)
    error = assert_raises(ArgumentError) { Deckhand::Client.cancel("0" * 24, grace: -1) }
    assert_match(/grace: must be a number of seconds/, error.message)
  end

  def test_a_record_key_of_the_wrong_type_is_refused_with_nothing_changed
    jid = RecordJob.perform_async(1)
    raw = raw_queue("default").first
    redis.call("HSET", "deckhand:cancelled:#{jid}", "a", "b")
    error = assert_raises(Deckhand::CommandError) { Deckhand::Client.cancel(jid) }
    assert_match(/WRONGTYPE Deckhand keeps a string at key "deckhand:cancelled:#{jid}"/, error.message)
    assert_equal [raw], raw_queue("default"), "the job stays where it was"
  end
end
