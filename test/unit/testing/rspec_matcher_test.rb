# frozen_string_literal: true

require_relative "../../support/testing/testing_helper"
require "rspec/expectations"

# The matcher through RSpec's own expect/to/not_to, and through its plain interface.
class TestingRSpecMatcherTest < Minitest::Test
  include Deckhand::TestingHelpers
  include RSpec::Matchers
  include Deckhand::Testing::Matchers

  NotMet = RSpec::Expectations::ExpectationNotMetError

  def setup
    super
    Deckhand::Testing.fake!
  end

  def test_matches_class_args_queue_and_count
    WelcomeEmailJob.perform_async(42)
    WelcomeEmailJob.perform_async(42)
    expect(WelcomeEmailJob).to have_enqueued_deckhand_job(42)
    expect(WelcomeEmailJob).to have_enqueued_deckhand_job
    expect(WelcomeEmailJob).to have_enqueued_deckhand_job(42).on_queue("mailers").twice
    expect(WelcomeEmailJob).to have_enqueued_deckhand_job.exactly(2).times
    expect(WelcomeEmailJob).not_to have_enqueued_deckhand_job(7)
    expect(RecordJob).not_to have_enqueued_deckhand_job
  end

  def test_failure_messages
    WelcomeEmailJob.perform_async(1)
    error = assert_raises(NotMet) { expect(WelcomeEmailJob).to have_enqueued_deckhand_job(2) }
    assert_includes error.message, "expected WelcomeEmailJob with args [2] to be pushed"
    assert_includes error.message, "[1] on \"mailers\""
    error = assert_raises(NotMet) { expect(WelcomeEmailJob).to have_enqueued_deckhand_job.once.on_queue("other") }
    assert_includes error.message, "expected 1 WelcomeEmailJob on queue \"other\", found 0"
    error = assert_raises(NotMet) { expect(WelcomeEmailJob).not_to have_enqueued_deckhand_job(1) }
    assert_includes error.message, "expected no WelcomeEmailJob with args [1] to be pushed, found 1"
  end

  def test_scheduled_jobs
    WelcomeEmailJob.perform_in(300, 9)
    expect(WelcomeEmailJob).to have_enqueued_deckhand_job(9).in(300)
    expect(WelcomeEmailJob).to have_enqueued_deckhand_job(9).at(Time.now + 300)
    expect(WelcomeEmailJob).not_to have_enqueued_deckhand_job(9).in(30)
  end

  def test_plain_interface_without_rspec
    matcher = Deckhand::Testing::EnqueuedMatcher.new([5]).on_queue("mailers")
    refute matcher.matches?(WelcomeEmailJob)
    WelcomeEmailJob.perform_async(5)
    assert matcher.matches?(WelcomeEmailJob)
    assert_equal "have enqueued WelcomeEmailJob with args [5] on queue \"mailers\"", matcher.description
    assert_raises(ArgumentError) { Deckhand::Testing::EnqueuedMatcher.new([]).once.does_not_match?(WelcomeEmailJob) }
  end
end
