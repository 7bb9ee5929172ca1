# frozen_string_literal: true

require "test_helper"

# A job over a limiter's limit goes back to the schedule set (not retry),
# its overrated count kept, until the limiter's reschedule budget is spent;
# then it takes the normal retry path.
class OverLimitJobTest < Minitest::Test
  FULL = Deckhand::Limiter.concurrent("full-api", 1, wait_timeout: 0, reschedule: 2)
  PACED = Deckhand::Limiter.window("paced-api", 1, :hour, backoff: ->(overrated, job) { 1000 + overrated + job["args"].first })

  class TooManyRequests < StandardError; end
  Deckhand::Limiter.over_limit_error(TooManyRequests, reschedule: 1)

  class FullJob
    include Deckhand::Job

    def perform = FULL.within_limit { Deckhand::TestJobs.record(:ran) }
  end

  class PacedJob
    include Deckhand::Job

    def perform(n) = PACED.within_limit { Deckhand::TestJobs.record(n) }
  end

  class ApiJob
    include Deckhand::Job

    def perform = raise(TooManyRequests, "429 from the API")
  end

  def setup
    super
    # The one slot of FULL is held by someone else for the whole test.
    Deckhand::Store::Scripts::LimitConcurrent.new(Deckhand.config.store).call("full-api", 1, holder: "other", lock_ms: 600_000)
  end

  def test_over_limit_job_lands_in_schedule_with_overrated_counted_then_in_retry_when_exhausted
    jid = FullJob.perform_async
    with_server do
      wait_for(message: "a schedule entry") { redis.call("ZCARD", "schedule") == 1 }
      job, score = zset("schedule").first
      assert_equal jid, job["jid"]
      assert_equal 1, job["overrated"]
      assert_nil job["retry_count"], "an over-limit run is not a failure"
      assert_equal 0, redis.call("ZCARD", "retry")
      assert_includes (Time.now.to_f + 300 - 5)..(Time.now.to_f + 600 + 1), score # 300 * 1 + rand(300) + 1

      due_now("schedule")
      wait_for(message: "the second reschedule") { zset("schedule").first&.first&.dig("overrated") == 2 }
      due_now("schedule")
      wait_for(message: "a retry entry once reschedule is spent") { redis.call("ZCARD", "retry") == 1 }
      job = zset("retry").first.first
      assert_equal "Deckhand::Limiter::OverLimit", job["error_class"]
      assert_equal 2, job["overrated"]
      assert_equal 0, redis.call("ZCARD", "schedule")
    end
    assert_empty Deckhand::TestJobs.runs
  end

  def test_a_limiters_backoff_proc_sets_the_delay
    PacedJob.perform_async(5) # passes
    PacedJob.perform_async(7) # over: 1 an hour
    with_server do
      wait_for(message: "a schedule entry") { redis.call("ZCARD", "schedule") == 1 }
    end
    job, score = zset("schedule").first
    ran = Deckhand::TestJobs.runs
    assert_equal 1, ran.size
    assert_equal [5, 7] - ran, job["args"], "the job that did not run is the one scheduled"
    assert_in_delta Time.now.to_f + 1000 + 1 + job["args"].first, score, 5
  end

  def test_an_error_class_marked_over_limit_is_rescheduled_too
    ApiJob.perform_async
    with_server do
      wait_for(message: "a schedule entry") { redis.call("ZCARD", "schedule") == 1 }
      assert_equal 1, zset("schedule").first.first["overrated"]
      due_now("schedule")
      wait_for(message: "a retry entry") { redis.call("ZCARD", "retry") == 1 }
      assert_equal "OverLimitJobTest::TooManyRequests", zset("retry").first.first["error_class"]
    end
  end

  private

  def due_now(set)
    raw = redis.call("ZRANGE", set, 0, 0).first
    redis.call("ZADD", set, "XX", Time.now.to_f - 1, raw)
  end
end
