# frozen_string_literal: true

require_relative "../../support/testing/testing_helper"

class TestingAssertionsTest < Minitest::Test
  include Deckhand::TestingHelpers
  include Deckhand::Testing::Assertions

  def setup
    super
    Deckhand::Testing.fake!
  end

  def test_assert_enqueued_by_class_args_and_queue
    WelcomeEmailJob.perform_async(42, {"mode" => "short"})
    found = assert_enqueued WelcomeEmailJob
    assert_equal 1, found.size
    assert_enqueued WelcomeEmailJob, args: [42, {mode: "short"}] # compared after JSON
    assert_enqueued WelcomeEmailJob, queue: "mailers", count: 1
    refute_enqueued WelcomeEmailJob, args: [43]
    refute_enqueued RecordJob
  end

  def test_failures_name_what_was_pushed
    WelcomeEmailJob.perform_async(1)
    error = assert_raises(Minitest::Assertion) { assert_enqueued WelcomeEmailJob, args: [2] }
    assert_includes error.message, "expected WelcomeEmailJob with args [2] to be pushed"
    assert_includes error.message, "[1] on \"mailers\""
    error = assert_raises(Minitest::Assertion) { assert_enqueued WelcomeEmailJob, count: 3 }
    assert_includes error.message, "expected 3 WelcomeEmailJob pushed, found 1"
    error = assert_raises(Minitest::Assertion) { refute_enqueued WelcomeEmailJob }
    assert_includes error.message, "expected no WelcomeEmailJob pushed, found 1"
    error = assert_raises(Minitest::Assertion) { assert_enqueued RecordJob }
    assert_includes error.message, "no RecordJob job was pushed"
  end

  def test_scheduled_time_by_at_or_in
    WelcomeEmailJob.perform_in(3600, 1)
    assert_enqueued WelcomeEmailJob, in: 3600
    assert_enqueued WelcomeEmailJob, at: Time.now + 3600
    refute_enqueued WelcomeEmailJob, in: 60
    WelcomeEmailJob.perform_async(2)
    assert_enqueued WelcomeEmailJob, args: [1], in: 3600
    refute_enqueued WelcomeEmailJob, args: [2], in: 3600
  end

  def test_block_form_counts_only_what_the_block_pushed
    WelcomeEmailJob.perform_async(1)
    assert_enqueued(WelcomeEmailJob, count: 2) do
      WelcomeEmailJob.perform_async(2)
      WelcomeEmailJob.perform_async(3)
    end
    refute_enqueued(WelcomeEmailJob) { RecordJob.perform_async(1) }
    assert_raises(Minitest::Assertion) { assert_enqueued(WelcomeEmailJob, args: [1]) {} }
  end

  def test_minitest_entry_point_includes_the_assertions
    require "deckhand/testing/minitest"
    assert_includes Minitest::Test.ancestors, Deckhand::Testing::Assertions
  end
end
