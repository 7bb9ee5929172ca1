# frozen_string_literal: true

require "test_helper"

# Mistakes a new user makes in the first hour, each refused where it is made
# with a message that names the problem and the fix.
class RoughEdgesTest < Minitest::Test
  class MailJob
    include Deckhand::Job

    deckhand_options queue: "mailers", tenant: "main"

    def perform(*) = nil
  end

  def test_a_redis_url_without_a_scheme_is_refused_naming_the_fix
    error = assert_raises(Deckhand::ConfigError) { Deckhand::Config.new(redis: {url: "localhost:6379"}) }
    assert_includes error.message, %("localhost:6379" (REDIS_URL or redis: {url:}) has no scheme)
    assert_includes error.message, "write redis://localhost:6379"
    error = assert_raises(Deckhand::ConfigError) { Deckhand::Config.new(redis: {url: "http://localhost:6379"}) }
    assert_includes error.message, "has the scheme http://"
  end

  def test_the_refusal_shows_no_password
    error = assert_raises(Deckhand::ConfigError) { Deckhand::Config.new(redis: {url: "app:s3cret@10.0.0.5:6379"}) }
    refute_includes error.message, "s3cret"
    assert_includes error.message, "redis://app:***@10.0.0.5:6379"
  end

  def test_good_urls_pass
    %w[redis://h:6379/1 rediss://h unix:///tmp/redis.sock].each do |url|
      assert_equal url, Deckhand::Config.new(redis: {url: url}).redis[:url]
    end
  end

  def test_set_refuses_an_unknown_option_naming_the_known_ones
    error = assert_raises(ArgumentError) { MailJob.set(queu: "critical") }
    assert_includes error.message, %(RoughEdgesTest::MailJob.set: unknown option "queu" (did you mean "queue"?))
    assert_includes error.message, "known: queue, retry_queue, retry, retry_for, backtrace, dead, "
    assert_match(/known: .*, profiler_options, result, chunk\. An option of your own/, error.message)
    assert_raises(ArgumentError) { MailJob.set(queue: "a").set(priorty: 1) }
    assert_empty jobs_in("critical")
  end

  def test_set_takes_known_options_and_those_the_class_declared
    MailJob.set(queue: "critical", retry: 2, tenant: "other").perform_async(1)
    job = jobs_in("critical").first
    assert_equal [2, "other"], job.values_at("retry", "tenant")
  end

  def test_a_bad_bulk_item_is_named_by_its_index_and_nothing_is_pushed
    error = assert_raises(Deckhand::InvalidJob) { MailJob.perform_bulk([[1], [2], [Object.new], [4]]) }
    assert_match(/\ARoughEdgesTest::MailJob bulk push item 2: args\[0\] is an Object \(/, error.message)
    assert_empty jobs_in("mailers")
  end

  def test_the_error_reads_well_with_a_or_an
    assert_match(/ is a Symbol \(:a\)/, assert_raises(Deckhand::InvalidJob) { MailJob.perform_async(:a) }.message)
    assert_match(/ is an Object \(/, assert_raises(Deckhand::InvalidJob) { MailJob.perform_async(Object.new) }.message)
  end
end
