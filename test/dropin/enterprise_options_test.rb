# frozen_string_literal: true

require_relative "dropin_helper"

# Sidekiq Enterprise's job options (unique_for, expires_in, encrypt) and
# periodic jobs (config.periodic), and sidekiq-unique-jobs' lock options, in
# a drop-in child without the sidekiq gem (inside/test_enterprise_options.rb).
class DropInEnterpriseOptionsTest < Minitest::Test
  include Deckhand::DropInHelpers

  def test_enterprise_and_unique_jobs_options_work_in_drop_in_mode
    assert_dropin_tests_pass(File.expand_path("inside/test_enterprise_options.rb", __dir__))
  end
end
