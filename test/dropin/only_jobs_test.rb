# frozen_string_literal: true

require_relative "dropin_helper"

# What a drop-in server runs, in a child without the sidekiq gem
# (inside/test_only_jobs.rb holds the assertions).
class DropInOnlyJobsTest < Minitest::Test
  include Deckhand::DropInHelpers

  def test_sidekiq_jobs_and_active_job_wrappers_run_and_a_plain_class_never_does
    assert_dropin_tests_pass(File.expand_path("inside/test_only_jobs.rb", __dir__), preload: false)
  end
end
