# frozen_string_literal: true

require "test_helper"
require "active_support"
require "active_support/core_ext/numeric/time"

# Errors whose message is awkward: bytes that are not UTF-8, a message that
# raises. The failure is recorded all the same.
class BinaryMessageJob
  include Deckhand::Job

  def perform = raise(ArgumentError, "bad byte \xC3 here".b)
end

class RaisingMessageError < StandardError
  def message = raise("the message itself fails")
end

class RaisingMessageJob
  include Deckhand::Job

  def perform = raise(RaisingMessageError)
end

class RetryForDurationJob
  include Deckhand::Job

  deckhand_options retry_for: 2.days

  def perform = nil
end

class BrokenRetryInJob
  include Deckhand::Job

  deckhand_retry_in { |count, _error, _job| count / 0 }

  def perform = raise(IOError, "down")
end

class FailureRecordsTest < Minitest::Test
  def setup
    super
    Deckhand.config = new_config(concurrency: 2, heartbeat_interval: 0.1, scheduler_interval: 0.05, timeout: 2)
  end

  def test_a_message_that_is_not_utf8_is_stored_with_its_bad_bytes_replaced
    BinaryMessageJob.perform_async
    with_server { wait_for(message: "retry entry") { redis.call("ZCARD", "retry") == 1 } }
    job = zset("retry").first.first
    assert_equal "bad byte \uFFFD here", job["error_message"]
    assert_equal "ArgumentError", job["error_class"]
  end

  def test_a_message_that_raises_still_leaves_the_job_in_the_retry_set
    RaisingMessageJob.perform_async
    with_server { wait_for(message: "retry entry") { redis.call("ZCARD", "retry") == 1 } }
    job = zset("retry").first.first
    assert_equal "RaisingMessageError", job["error_class"]
    assert_includes job["error_message"], "could not be read"
    assert_equal 0, redis.call("ZCARD", "dead"), "recorded as a retry, not as a thread that died"
  end

  def test_retry_for_as_a_duration_is_stored_as_seconds
    assert_equal 172_800, RetryForDurationJob.deckhand_options["retry_for"]
    RetryForDurationJob.perform_async
    assert_equal 172_800, jobs_in("default").first["retry_for"]
  end

  def test_a_retry_in_rule_that_raises_falls_back_to_the_default_backoff_and_says_so
    log = StringIO.new
    Deckhand.config.logger = ::Logger.new(log)
    BrokenRetryInJob.perform_async
    before = Time.now.to_f
    with_server { wait_for(message: "retry entry") { redis.call("ZCARD", "retry") == 1 } }
    _job, score = zset("retry").first
    assert_operator score, :>=, before + 15 - 0.01, "the default backoff: 15 seconds and more after the failure"
    assert_includes log.string, "Failure scheduling retry using the defined `deckhand_retry_in` in BrokenRetryInJob, " \
      "falling back to the default backoff: the block raised ZeroDivisionError"
  end

  def test_the_backtrace_cleaner_cleans_stored_backtraces_and_one_that_raises_is_skipped
    Deckhand.config.backtrace_cleaner = ->(lines) { lines.grep(/failure_records_test/) }
    RaisingMessageJob.perform_async
    with_server { wait_for(message: "retry entry") { redis.call("ZCARD", "retry") == 1 } }
    lines = Deckhand::Payload::Backtrace.expand(zset("retry").first.first["error_backtrace"])
    refute_empty lines
    assert lines.all? { |line| line.include?("failure_records_test") }, lines.inspect

    redis.call("DEL", "retry")
    config = new_config(concurrency: 1, scheduler_interval: 0.05)
    config.backtrace_cleaner = ->(_lines) { raise "cleaner broke" }
    Deckhand.config = config
    RaisingMessageJob.perform_async
    with_server { wait_for(message: "retry entry") { redis.call("ZCARD", "retry") == 1 } }
    assert_operator Deckhand::Payload::Backtrace.expand(zset("retry").first.first["error_backtrace"]).size, :>, 1, "kept as it was"
  end

  def test_a_backtrace_cleaner_must_be_callable
    assert_raises(Deckhand::ConfigError) { Deckhand.config.backtrace_cleaner = "no" }
  end
end
