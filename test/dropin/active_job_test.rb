# frozen_string_literal: true

require_relative "dropin_helper"

# Active Job in drop-in mode, in a child without the sidekiq gem
# (inside/test_active_job.rb holds the assertions).
class DropInActiveJobTest < Minitest::Test
  include Deckhand::DropInHelpers

  def test_queue_adapter_sidekiq_runs_on_deckhand_with_jobs_sidekiq_queued
    assert_dropin_tests_pass(File.expand_path("inside/test_active_job.rb", __dir__), preload: false)
  end

  def test_sidekiq_testing_finds_active_job_jobs_under_sidekiqs_wrapper
    assert_dropin_tests_pass(File.expand_path("inside/test_active_job_testing.rb", __dir__), preload: false)
  end
end
