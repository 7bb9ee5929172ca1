# frozen_string_literal: true

# Runs in a drop-in child without the sidekiq gem (test/dropin/active_job_test.rb):
# an application's tests of Active Job jobs under Sidekiq::Testing, as they
# were written for the sidekiq gem, find the jobs under Sidekiq's wrapper.
require "minitest/autorun"
require "active_job"
require "deckhand/sidekiq"
require "sidekiq/testing"

class GreetingJob < ActiveJob::Base
  RAN = []

  def perform(name) = RAN << name
end

class ActiveJobTestingInsideTest < Minitest::Test
  WRAPPER = ActiveJob::QueueAdapters::SidekiqAdapter::JobWrapper

  def setup
    ActiveJob::Base.logger = Logger.new(File::NULL)
    ActiveJob::Base.queue_adapter = :sidekiq
    Sidekiq::Worker.clear_all
  end

  def test_fake_mode_files_active_job_jobs_under_sidekiqs_wrapper
    Sidekiq::Testing.fake! do
      GreetingJob.perform_later("ada")
      assert_equal 1, WRAPPER.jobs.size
      # The name the Sidekiq version writes, the class's own.
      written = Sidekiq::VERSION.start_with?("8.") ? "Sidekiq::ActiveJob::Wrapper" : "ActiveJob::QueueAdapters::SidekiqAdapter::JobWrapper"
      assert_equal [[written, "GreetingJob"]], Sidekiq::Worker.jobs.map { |job| job.values_at("class", "wrapped") }
      assert_equal written, WRAPPER.name
      assert_same WRAPPER, Sidekiq::ActiveJob::Wrapper
      assert_equal "sidekiq", ActiveJob::Base.queue_adapter_name
      WRAPPER.drain
    end
    assert_equal ["ada"], GreetingJob::RAN
  end
end
