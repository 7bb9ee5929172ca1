# frozen_string_literal: true

require_relative "dropin_helper"

# Sidekiq's "add to queue" for a scheduled job written without a queue, in
# a child process where the sidekiq gem is absent
# (inside/test_sidekiq_web_queueless.rb holds the assertions).
class DropInSidekiqWebQueuelessTest < Minitest::Test
  include Deckhand::DropInHelpers

  def test_a_scheduled_job_without_a_queue_goes_to_default_from_the_dashboard_only
    assert_dropin_tests_pass(File.expand_path("inside/test_sidekiq_web_queueless.rb", __dir__))
  end
end
