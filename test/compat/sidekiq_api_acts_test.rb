# frozen_string_literal: true

require "test_helper"
require_relative "compat_helper"

# Sidekiq's API acting on jobs Deckhand wrote: what a user does from Sidekiq's
# dashboard or console in a fleet that runs both.
class SidekiqApiActsTest < Minitest::Test
  include Deckhand::CompatTest

  def test_retry_one_then_retry_all_puts_deckhand_retries_back_to_run
    first = CompatFlakyJob.perform_async("first", 1)
    second = CompatFlakyJob.perform_async("second", 1)
    with_server(fast_config) do
      # Both fail once; their retries wait at least 15 s, longer than this test.
      wait_for(message: "two retry entries") { redis.call("ZCARD", "retry") == 2 }

      Sidekiq::RetrySet.new.find_job(first).retry
      wait_for(message: "the retried job") { runs_of(first).size == 2 }
      assert_equal [second], Sidekiq::RetrySet.new.map(&:jid)

      Sidekiq::RetrySet.new.retry_all
      wait_for(message: "the other retried job") { runs_of(second).size == 2 }
    end
    assert_equal [["first", 1]] * 2, runs_of(first).map(&:last)
    assert_equal [["second", 1]] * 2, runs_of(second).map(&:last)
    assert_equal [0, 0, 0], [Sidekiq::RetrySet.new.size, Sidekiq::DeadSet.new.size, Sidekiq::Queue.new(QUEUE).size]
  end

  def test_retry_from_the_dead_set_runs_again
    jid = CompatQuickRetryJob.set(retry: 1).perform_async("revived", 2)
    with_server(fast_config) do
      wait_for(message: "the dead entry") { redis.call("ZCARD", "dead") == 1 }
      Sidekiq::DeadSet.new.find_job(jid).retry
      wait_for(message: "the third attempt") { runs_of(jid).size == 3 }
    end
    assert_equal 3, runs_of(jid).size
    assert_equal [0, 0], [Sidekiq::DeadSet.new.size, Sidekiq::RetrySet.new.size]
  end

  def test_add_to_queue_from_the_scheduled_set_runs_it_now
    jid = CompatFlakyJob.perform_in(300, "now please", 0)
    Sidekiq::ScheduledSet.new.find_job(jid).add_to_queue
    assert_equal 0, Sidekiq::ScheduledSet.new.size
    assert_equal [jid], Sidekiq::Queue.new(QUEUE).map(&:jid)

    with_server(fast_config) do
      wait_for(message: "the job") { runs_of(jid).any? }
    end
    assert_equal [[jid, ["now please", 0]]], Deckhand::TestJobs.runs
  end

  def test_reschedule_moves_a_deckhand_scheduled_job
    jid = CompatFlakyJob.perform_in(300, "sooner", 0)
    # Sidekiq re-serializes the job to find its entry: it must match Deckhand's JSON byte for byte.
    Sidekiq::ScheduledSet.new.find_job(jid).reschedule(Time.now - 1)
    assert_equal 1, Sidekiq::ScheduledSet.new.size

    with_server(fast_config) do
      wait_for(message: "the rescheduled job") { runs_of(jid).any? }
    end
    assert_equal [[jid, ["sooner", 0]]], Deckhand::TestJobs.runs
    assert_equal 0, Sidekiq::ScheduledSet.new.size
  end
end
