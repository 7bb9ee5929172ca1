# frozen_string_literal: true

# Runs in a drop-in child (test/dropin/sidekiq_public_api_test.rb starts it):
# Sidekiq's job options are the application's data, as in Sidekiq.
require "minitest/autorun"
require "json"
require "sidekiq"
require "sidekiq/api"

class OptionsParentJob
  include Sidekiq::Job

  queue_as :reports
  sidekiq_options "retry" => "base", "tenant" => {"id" => 7}

  def perform(*) = nil
end

class OptionsChildJob < OptionsParentJob
  sidekiq_options retry: 3
end

class JobOptionsInsideTest < Minitest::Test
  def setup
    Sidekiq.redis { |conn| conn.call("FLUSHDB") }
  end

  def queued(queue) = Sidekiq.redis { |conn| conn.call("LRANGE", "queue:#{queue}", 0, -1) }.map { |raw| JSON.parse(raw) }

  def test_any_value_and_key_is_stored_as_given_and_inherited
    assert_equal({"retry" => "base", "queue" => "reports", "tenant" => {"id" => 7}}, OptionsParentJob.get_sidekiq_options)
    assert_equal({"retry" => 3, "queue" => "reports", "tenant" => {"id" => 7}}, OptionsChildJob.get_sidekiq_options)
    OptionsParentJob.perform_async(1)
    assert_equal [["base", {"id" => 7}]], queued("reports").map { |job| job.values_at("retry", "tenant") }
  end

  def test_deckhand_features_are_still_checked_where_declared
    error = assert_raises(ArgumentError) { Class.new { include Sidekiq::Job }.sidekiq_options(unique_for: "soon") }
    assert_includes error.message, "unique_for"
  end

  def test_set_takes_any_option_and_active_jobs_wait
    setter = OptionsParentJob.set(queue: :bar, audit: "qaaz")
    2.times { setter.perform_async(1) }
    assert_equal [["bar", "qaaz"]] * 2, queued("bar").map { |job| job.values_at("queue", "audit") }
    OptionsParentJob.set(queue: :bar).set(trace: "t1").perform_async(2)
    assert_equal "t1", queued("bar").first["trace"]

    OptionsParentJob.set(wait: 3600).perform_async(3)
    OptionsParentJob.set(wait_until: Time.now + 7200).perform_async(4)
    assert_equal [[4], [3]], Sidekiq::ScheduledSet.new.map(&:args), "latest first, as Sidekiq's sets"
    OptionsParentJob.set(wait_until: Time.now - 60).perform_async(5)
    assert_equal [5], queued("reports").last["args"], "a time already past pushes to the queue"
  end

  def test_perform_sync_runs_now
    ran = []
    job = Class.new do
      include Sidekiq::Job

      define_method(:perform) { |value| ran << value }
    end
    Object.const_set(:OptionsSyncJob, job)
    OptionsSyncJob.perform_sync(9)
    assert_equal [9], ran
  end

  def test_interrupted_asks_the_context_or_the_process
    job = OptionsParentJob.new
    refute job.interrupted?
    job._context = Struct.new(:stopping?).new(true)
    assert job.interrupted?
  end

  def test_active_job_classes_take_sidekiq_options
    klass = Class.new { include Sidekiq::Job::Options }
    klass.sidekiq_options retry: 4, backtrace: 5
    assert_equal({"retry" => 4, "queue" => "default", "backtrace" => 5}, klass.get_sidekiq_options)
  end

  def test_class_attributes_are_inherited_until_set
    parent = Class.new { include Sidekiq::Job }
    parent.sidekiq_class_attribute :count, :label
    parent.count = 1
    child = Class.new(parent)
    assert_equal [1, 1, nil], [child.count, child.new.count, child.label]
    child.count = 2
    assert_equal [1, 2], [parent.count, child.count]
    job = child.new
    job.count = 3
    assert_equal [3, 2], [job.count, child.new.count]
  end
end
