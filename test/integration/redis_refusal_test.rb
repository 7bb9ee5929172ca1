# frozen_string_literal: true

require "test_helper"

# Redis refusing a write that retrying alone will not fix: the job stays safe
# in flight, the log says which key and what to do, and the job lands where it
# belongs once someone fixes the key.
class RedisRefusalTest < Minitest::Test
  def test_a_retry_set_of_the_wrong_type_keeps_the_failed_job_until_it_is_fixed
    log = StringIO.new
    Deckhand.config = new_config(concurrency: 1, timeout: 1)
    Deckhand.config.logger = Logger.new(log)
    redis.call("SET", "retry", "not a sorted set")
    with_server do |launcher|
      jid = FailJob.perform_async("x")
      line = wait_for(message: "the refusal in the log") { log.string.lines.find { |l| l.include?("recording the outcome") } }
      assert_match(/ERROR -- : recording the outcome of a job from queue default: Redis at redis:\/\/127\.0\.0\.1:\d+\/0 refused Deckhand's settle script: WRONGTYPE/, line)
      assert_includes line, %("retry" is a string)
      assert_includes line, "rename or delete it"
      assert_includes line, "retrying until this is fixed"
      assert_equal 1, inflight_count(launcher.identity), "the job stays in flight while its outcome cannot be written"

      redis.call("DEL", "retry")
      wait_for(message: "the job in the retry set") { zset("retry").map { |job, _| job["jid"] } == [jid] }
      wait_for(message: "nothing left in flight") { inflight_count(launcher.identity).zero? }
    end
    assert_includes log.string, "Redis answers again"
  end

  def test_a_push_while_redis_is_down_raises_a_deckhand_error_that_names_the_fix
    Deckhand.config = new_config(redis: {url: "redis://127.0.0.1:1/0", connect_timeout: 0.2})
    error = assert_raises(Deckhand::ConnectionError) { RecordJob.perform_async(1) }
    assert_kind_of Deckhand::RedisError, error
    assert error.transient?
    assert_kind_of RedisClient::CannotConnectError, error.cause
    assert_match(/refused the connection .*is redis-server running\? Set REDIS_URL/, error.message)
  end
end
