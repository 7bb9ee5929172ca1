# frozen_string_literal: true

require_relative "dropin_helper"

# Sidekiq's queue page addresses (`count=`, `direction=`) in a child process
# where the sidekiq gem is absent (inside/test_sidekiq_web_queue_order.rb
# holds the assertions).
class DropInSidekiqWebQueueOrderTest < Minitest::Test
  include Deckhand::DropInHelpers

  def test_a_queue_paged_sidekiqs_way_shows_the_newest_first
    assert_dropin_tests_pass(File.expand_path("inside/test_sidekiq_web_queue_order.rb", __dir__))
  end
end
