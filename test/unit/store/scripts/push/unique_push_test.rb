# frozen_string_literal: true

require "test_helper"

# The client side of unique jobs: the lock is taken with the push, in the same
# round trip, and a duplicate is not pushed.
class UniquePushTest < Minitest::Test
  class SyncJob
    include Deckhand::Job

    deckhand_options unique_for: 600

    def perform(*) = nil
  end

  class FirstArgJob
    include Deckhand::Job

    deckhand_options unique_for: 60, on_conflict: :raise
    deckhand_unique_args { |args| args.first(1) }

    def perform(*) = nil
  end

  def locks = redis.call("KEYS", "unique:*")

  def test_a_duplicate_push_returns_nil_and_is_not_queued
    jid = SyncJob.perform_async(42)
    refute_nil jid
    assert_nil SyncJob.perform_async(42)
    assert_equal [jid], jobs_in("default").map { |j| j["jid"] }
    key = jobs_in("default").first["unique_key"]
    assert_match(/\Aunique:\h{64}\z/, key)
    assert_equal [key], locks
    assert_equal jid, redis.call("GET", key)
    ttl = redis.call("PTTL", key)
    assert_operator ttl, :>, 590_000
    assert_operator ttl, :<=, 600_000
  end

  def test_the_duplicate_is_logged_with_the_holder
    log = StringIO.new
    Deckhand.config.logger = Logger.new(log)
    jid = SyncJob.perform_async(1)
    SyncJob.perform_async(1)
    assert_includes log.string, "job #{jid} holds its unique lock"
  end

  def test_other_args_and_other_queues_are_other_jobs
    assert SyncJob.perform_async(1)
    assert SyncJob.perform_async(2)
    assert SyncJob.set(queue: "other").perform_async(1)
    assert_equal 3, locks.size
  end

  def test_unique_for_false_bypasses_the_lock
    SyncJob.perform_async(1)
    assert SyncJob.set(unique_for: false).perform_async(1)
    assert_equal 2, redis.call("LLEN", "queue:default")
    assert_equal 1, locks.size
  end

  def test_on_conflict_raise_names_the_holder_and_unique_args_narrow_the_key
    jid = FirstArgJob.perform_async(7, "a")
    error = assert_raises(Deckhand::NotUnique) { FirstArgJob.perform_async(7, "b") }
    assert_equal jid, error.holder
    assert_includes error.message, jid
    assert FirstArgJob.perform_async(8, "a")
  end

  def test_a_scheduled_lock_lasts_its_delay_plus_unique_for
    jid = SyncJob.perform_in(300, 5)
    assert_nil SyncJob.perform_async(5)
    entry, = zset("schedule").first
    assert_equal jid, entry["jid"]
    ttl = redis.call("PTTL", entry["unique_key"])
    assert_operator ttl, :>, 890_000
    assert_operator ttl, :<=, 900_000
  end

  def test_perform_bulk_returns_nil_where_it_skipped
    SyncJob.perform_async(2)
    jids = SyncJob.perform_bulk([[1], [2], [3], [1]])
    assert jids[0]
    assert_nil jids[1]
    assert jids[2]
    assert_nil jids[3]
    assert_equal 3, redis.call("LLEN", "queue:default")
  end

  def test_durations_become_seconds_and_bad_values_fail_where_declared
    assert_equal 600, SyncJob.deckhand_options["unique_for"]
    error = assert_raises(ArgumentError) { Class.new { include Deckhand::Job }.deckhand_options(unique_for: "soon") }
    assert_includes error.message, "unique_for"
    assert_raises(ArgumentError) { SyncJob.set(unique_until: :finish) }
  end

  def test_perform_inline_holds_the_lock_while_it_runs
    seen = nil
    klass = Class.new(SyncJob) { define_method(:perform) { |*| seen = Deckhand.config.store.call("KEYS", "unique:*") } }
    self.class.const_set(:InlineJob, klass)
    klass.perform_inline(3)
    assert_equal 1, seen.size
    assert_empty locks
    klass.perform_async(3)
    seen = nil
    assert_nil klass.perform_inline(3)
    assert_nil seen
  end
end
