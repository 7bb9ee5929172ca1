# frozen_string_literal: true

require_relative "dropin_helper"

# The APIs Sidekiq 8 added, in drop-in mode: each file runs in a child
# process without the sidekiq gem (the assertions are in inside/).
class DropInSidekiq8ApiTest < Minitest::Test
  include Deckhand::DropInHelpers

  def test_sidekiq_8_configuration_and_iteration
    assert_dropin_tests_pass(File.expand_path("inside/test_sidekiq8_config.rb", __dir__))
  end

  def test_sidekiq_8_web_extension_names
    assert_dropin_tests_pass(File.expand_path("inside/test_sidekiq8_web.rb", __dir__))
  end

  def test_sidekiq_8_helpers_for_plugins_and_the_data_api
    assert_dropin_tests_pass(File.expand_path("inside/test_sidekiq8_api.rb", __dir__))
  end

  def test_sidekiq_8_job_profiling
    assert_dropin_tests_pass(File.expand_path("inside/test_sidekiq8_profiling.rb", __dir__))
  end
end
