# frozen_string_literal: true

require "test_helper"
require_relative "../../../../support/script_guard"

# settle.lua writes a failed job's outcome and its mark together, or nothing:
# Redis refusing the write leaves the job where it was; a call repeated after
# a lost reply writes nothing twice; a job no longer in flight is left alone.
# It runs behind the guard that fails any call on an undeclared key.
class SettleTest < Minitest::Test
  Settle = Deckhand::ScriptGuard.wrap(Deckhand::Store::Scripts::Settle)
  IDENTITY = "host:1:settle"
  JOB = %({"class":"FailJob","args":[],"jid":"0123456789abcdef01234567","queue":"default"})

  def settle = Settle.new(Deckhand.config.store, identity: IDENTITY, queue: "default")

  def keys = Deckhand::Store::Layout::Plain

  def inflight = keys.inflight(IDENTITY, "default")

  def landing = keys.landing(IDENTITY, "default")

  # A lot of two jobs, as the fetch script files it.
  def file_lot(id = 7)
    redis.call("RPUSH", keys.lot(IDENTITY, "default", id), JOB, JOB.sub("FailJob", "RecordJob"))
    redis.call("HSET", inflight, id.to_s, "2")
  end

  def retry_entries = redis.call("ZRANGE", "retry", 0, -1)

  def test_a_lot_job_is_written_and_marked_once
    file_lot
    assert_equal :written, settle.retry([:lot, 7, 1], at: 100.5, payload: JOB)
    assert_equal [JOB], retry_entries
    assert_equal "", redis.call("HGET", inflight, "7:1")
    assert_equal :settled, settle.retry([:lot, 7, 1], at: 200, payload: JOB.sub("[]", "[1]"))
    assert_equal [JOB], retry_entries, "a repeated call writes nothing"
    assert_equal 100.5, redis.call("ZSCORE", "retry", JOB).to_f
  end

  # A fetched job of a paused class: held as fetched in its queue's held set
  # for the class, and marked settled, in one step; once only.
  def test_a_held_job_goes_to_its_classes_held_set_and_is_marked_once
    file_lot
    assert_equal :written, settle.hold([:lot, 7, 0], "FailJob", at: 100.25, payload: JOB)
    assert_equal [JOB], redis.call("ZRANGE", "deckhand:held:default:FailJob", 0, -1)
    assert_equal "", redis.call("HGET", inflight, "7:0")
    assert_equal :settled, settle.hold([:lot, 7, 0], "FailJob", at: 200, payload: JOB)
    assert_equal 100.25, redis.call("ZSCORE", "deckhand:held:default:FailJob", JOB).to_f
    redis.call("RPUSH", landing, JOB)
    assert_equal :written, settle.hold([:landing, JOB], "Other", at: 1, payload: JOB)
    assert_equal 0, redis.call("LLEN", landing)
    assert_equal [JOB], redis.call("ZRANGE", "deckhand:held:default:Other", 0, -1)
  end

  def test_a_job_the_fetcher_acknowledged_in_its_bitmap_counts_as_settled
    file_lot
    redis.call("HSET", inflight, "7~", [0b10].pack("C"))
    assert_equal :settled, settle.retry([:lot, 7, 1], at: 1, payload: JOB)
    assert_equal :written, settle.retry([:lot, 7, 0], at: 1, payload: JOB)
  end

  def test_a_refused_write_leaves_the_job_where_it_was
    file_lot
    redis.call("RPUSH", landing, JOB)
    redis.call("SET", "retry", "not a sorted set")
    [[:lot, 7, 0], [:landing, JOB]].each do |where|
      error = assert_raises(Deckhand::CommandError) { settle.retry(where, at: 1, payload: JOB) }
      assert_equal "WRONGTYPE", error.code
    end
    assert_nil redis.call("HGET", inflight, "7:0")
    assert_equal [JOB], redis.call("LRANGE", landing, 0, -1), "the landed job is still in flight"
    redis.call("DEL", "retry")
    assert_equal :written, settle.retry([:landing, JOB], at: 1, payload: JOB)
    assert_equal [], redis.call("LRANGE", landing, 0, -1)
    assert_equal [JOB], retry_entries
  end

  def test_a_lock_key_of_another_type_is_left_alone_and_the_outcome_written
    file_lot
    redis.call("RPUSH", "unique-lock", "not a lock")
    assert_equal :written, settle.bury([:lot, 7, 0], payload: JOB, now: 1000.0, timeout: 100, max_jobs: 10, unlock: ["unique-lock", "jid"])
    assert_equal 1, redis.call("ZCARD", "dead")
    assert_equal ["not a lock"], redis.call("LRANGE", "unique-lock", 0, -1)
  end

  def test_a_landed_job_settled_by_a_lost_reply_is_found_in_its_set
    redis.call("RPUSH", landing, JOB)
    assert_equal :written, settle.retry([:landing, JOB], at: 1, payload: JOB.sub("[]", "[2]"))
    assert_equal :settled, settle.retry([:landing, JOB], at: 1, payload: JOB.sub("[]", "[2]"))
    assert_equal 1, retry_entries.size
  end

  def test_a_job_no_longer_in_flight_is_gone_and_nothing_is_written
    assert_equal :gone, settle.retry([:lot, 9, 0], at: 1, payload: JOB)
    assert_equal :gone, settle.retry([:landing, JOB], at: 1, payload: JOB)
    assert_equal :gone, settle.drop([:landing, JOB])
    assert_equal [], retry_entries
  end

  def test_a_death_releases_the_unique_lock_only_for_its_holder
    file_lot
    redis.call("SET", "unique-lock", "jid-a")
    settle.bury([:lot, 7, 0], payload: JOB, now: 1000.0, timeout: 100, max_jobs: 10, unlock: ["unique-lock", "jid-b"])
    assert_equal "jid-a", redis.call("GET", "unique-lock")
    settle.bury([:lot, 7, 1], payload: JOB.sub("[]", "[1]"), now: 1000.0, timeout: 100, max_jobs: 10, unlock: ["unique-lock", "jid-a"])
    assert_equal 0, redis.call("EXISTS", "unique-lock")
    assert_equal 2, redis.call("ZCARD", "dead")
  end
end
