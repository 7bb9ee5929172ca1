# frozen_string_literal: true

require_relative "dropin_helper"

# Scheduled jobs under a test's frozen time in drop-in mode, checked in a
# child process where the sidekiq gem is absent (inside/test_frozen_time.rb
# holds the assertions).
class DropInFrozenTimeTest < Minitest::Test
  include Deckhand::DropInHelpers

  def test_perform_in_perform_at_and_set_wait_count_from_the_time_the_test_sees
    assert_dropin_tests_pass(File.expand_path("inside/test_frozen_time.rb", __dir__), preload: false)
  end
end
