# frozen_string_literal: true

require_relative "dropin_helper"

# Sidekiq's config[:job_logger] and skip_default_job_logging on a Deckhand
# server, checked in a child process where the sidekiq gem is absent
# (inside/test_job_logger_config.rb holds the assertions).
class DropInJobLoggerConfigTest < Minitest::Test
  include Deckhand::DropInHelpers

  def test_a_custom_job_logger_is_honoured_and_a_bad_one_refused
    assert_dropin_tests_pass(File.expand_path("inside/test_job_logger_config.rb", __dir__))
  end
end
