# frozen_string_literal: true

require "test_helper"
require_relative "compat_helper"

# Sidekiq's RetrySet, DeadSet and ScheduledSet read what Deckhand wrote.
class SidekiqApiSetsTest < Minitest::Test
  include Deckhand::CompatTest

  def test_retry_set_shows_a_deckhand_failure
    jid = CompatFlakyJob.perform_async("flaky", 5)
    with_server(fast_config) do
      wait_for(message: "the retry entry") { redis.call("ZCARD", "retry") == 1 }
    end

    set = Sidekiq::RetrySet.new
    assert_equal 1, set.size
    entry = set.find_job(jid)
    assert_equal "CompatFlakyJob", entry.klass
    assert_equal ["flaky", 5], entry.args
    assert_equal jid, entry.jid
    assert_equal QUEUE, entry.queue
    assert entry.error?
    assert_equal "CompatError", entry["error_class"]
    assert_equal "flaky failed on attempt 1", entry["error_message"]
    assert_equal 0, entry["retry_count"]
    # Deckhand compresses the backtrace as Sidekiq does; Sidekiq inflates it.
    trace = entry.error_backtrace
    assert_kind_of Array, trace
    assert_match(/compat_helper\.rb:\d+:in `perform'/, trace.first)
    # The first retry waits at least 15 s (count**4 + 15 plus jitter).
    assert_operator entry.at, :>, Time.now + 10
    assert_equal 1, Sidekiq::Stats.new.retry_size
  end

  def test_dead_set_shows_a_job_that_exhausted_its_retries
    jid = CompatQuickRetryJob.set(retry: 1).perform_async("doomed", 9)
    with_server(fast_config) do
      wait_for(message: "the dead entry") { redis.call("ZCARD", "dead") == 1 }
    end
    assert_equal 2, runs_of(jid).size, "the first run and its one retry"

    entry = Sidekiq::DeadSet.new.find_job(jid)
    assert_equal "CompatQuickRetryJob", entry.klass
    assert_equal ["doomed", 9], entry.args
    assert_equal QUEUE, entry.queue
    assert_equal "CompatError", entry["error_class"]
    assert_equal "doomed failed on attempt 2", entry["error_message"]
    assert_equal 1, entry["retry_count"]
    assert entry["retried_at"]
    assert_match(/compat_helper\.rb/, entry.error_backtrace.first)
    assert_in_delta Time.now.to_f, entry.at.to_f, 60 # scored by the time it died
    assert_equal [0, 1], [Sidekiq::RetrySet.new.size, Sidekiq::Stats.new.dead_size]
  end

  def test_scheduled_set_shows_a_deckhand_perform_in
    before = Time.now.to_f
    jid = CompatFlakyJob.perform_in(300, "later", 0)
    after = Time.now.to_f

    set = Sidekiq::ScheduledSet.new
    assert_equal 1, set.size
    entry = set.find_job(jid)
    assert_equal "CompatFlakyJob", entry.klass
    assert_equal ["later", 0], entry.args
    assert_equal QUEUE, entry.queue
    assert_includes (before + 300)..(after + 300), entry.at.to_f
    assert_nil entry.enqueued_at, "not enqueued yet"
    assert_equal 1, Sidekiq::Stats.new.scheduled_size
  end
end
