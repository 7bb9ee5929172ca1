# frozen_string_literal: true

# Runs in a drop-in child (test/dropin/sidekiq_testing_test.rb starts it):
# Sidekiq's testing API as applications' test suites use it.
require "minitest/autorun"
require "sidekiq"
require "sidekiq/testing"

class TestingAddJob
  include Sidekiq::Job

  def perform(a, b) = self.class.sums << (a + b)

  def self.sums = @sums ||= []
end

class TestingFanOutJob
  include Sidekiq::Job

  sidekiq_options queue: :fan

  def perform = TestingAddJob.perform_async(1, 1)
end

class TestingTagMiddleware
  def call(job, payload, _queue)
    job.tag = payload["args"].first if job.respond_to?(:tag=)
    yield
  end
end

class TestingTaggedJob
  include Sidekiq::Job

  attr_accessor :tag

  def perform(_value) = self.class.tags << tag

  def self.tags = @tags ||= []
end

class SidekiqTestingInsideTest < Minitest::Test
  def setup
    Sidekiq::Testing.fake!
    Sidekiq::Queues.clear_all
    TestingAddJob.sums.clear
  end

  def test_jobs_and_queues_are_the_same_live_array_every_call
    jobs = TestingAddJob.jobs
    queue = Sidekiq::Queues["default"]
    assert_same jobs, TestingAddJob.jobs
    assert_same queue, Sidekiq::Queues["default"]
    TestingAddJob.perform_async(1, 2)
    assert_equal [[1, 2]], jobs.map { |job| job["args"] }
    assert_equal 1, queue.size
    TestingAddJob.drain
    assert_empty jobs
    assert_empty queue
    assert_equal [3], TestingAddJob.sums
  end

  def test_clearing_the_jobs_array_forgets_the_jobs
    TestingAddJob.perform_async(1, 2)
    TestingAddJob.jobs.clear
    assert_equal 0, TestingAddJob.drain
    assert_empty TestingAddJob.sums
  end

  def test_a_job_edited_in_place_runs_as_edited
    TestingAddJob.perform_async(1, 2)
    TestingAddJob.jobs.last["args"] = [5, 5]
    TestingAddJob.perform_one
    assert_equal [10], TestingAddJob.sums
  end

  def test_perform_one_on_nothing_raises_empty_queue_error
    assert_raises(Sidekiq::EmptyQueueError) { TestingAddJob.perform_one }
  end

  def test_queues_by_name_and_class_and_clear_all
    TestingFanOutJob.perform_async
    TestingAddJob.perform_async(2, 2)
    assert_equal 1, Sidekiq::Queues["fan"].size
    assert_equal %w[default fan], Sidekiq::Queues.jobs_by_queue.keys.sort
    assert_equal %w[TestingAddJob TestingFanOutJob], Sidekiq::Queues.jobs_by_class.keys.sort
    assert_equal "fan", TestingFanOutJob.queue.to_s
    Sidekiq::Job.drain_all
    assert_equal [4, 2], TestingAddJob.sums
    TestingAddJob.perform_async(1, 1)
    Sidekiq::Job.clear_all
    assert_empty Sidekiq::Job.jobs
    assert_empty Sidekiq::Queues["default"]
  end

  def test_execute_job_performs_without_middleware
    TestingAddJob.execute_job(TestingAddJob.new, [3, 4])
    assert_equal [7], TestingAddJob.sums
  end

  def test_server_middleware_wraps_drain_and_inline_and_clears
    Sidekiq::Testing.server_middleware { |chain| chain.add TestingTagMiddleware }
    assert Sidekiq::Testing.server_middleware.exists?(TestingTagMiddleware)
    TestingTaggedJob.perform_async("drained")
    TestingTaggedJob.drain
    Sidekiq::Testing.inline! { TestingTaggedJob.perform_async("inline") }
    Sidekiq::Testing.server_middleware.clear
    Sidekiq::Testing.inline! { TestingTaggedJob.perform_async("bare") }
    assert_equal ["drained", "inline", nil], TestingTaggedJob.tags
  ensure
    Sidekiq::Testing.server_middleware.clear
  end

  def test_nested_test_modes_raise
    Sidekiq::Testing.inline! do
      assert_raises(Sidekiq::Testing::TestModeAlreadySetError) { Sidekiq::Testing.fake! {} }
      assert Sidekiq::Testing.inline?
    end
    assert Sidekiq::Testing.fake?
  end
end
