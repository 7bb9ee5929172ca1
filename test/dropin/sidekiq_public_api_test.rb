# frozen_string_literal: true

require_relative "dropin_helper"

# Sidekiq's public API in drop-in mode, each file in a child process without
# the sidekiq gem (the assertions are in inside/).
class DropInSidekiqPublicApiTest < Minitest::Test
  include Deckhand::DropInHelpers

  def test_job_options_set_and_queue_as
    assert_dropin_tests_pass(File.expand_path("inside/test_job_options.rb", __dir__))
  end

  def test_sidekiq_web_instances_and_sidekiqs_addresses
    assert_dropin_tests_pass(File.expand_path("inside/test_web_app.rb", __dir__))
  end

  def test_data_api_records_sets_processes_work_and_stats
    assert_dropin_tests_pass(File.expand_path("inside/test_api_records.rb", __dir__))
  end

  def test_client_pushes_as_sidekiq_makes_them
    assert_dropin_tests_pass(File.expand_path("inside/test_client.rb", __dir__))
  end
end
