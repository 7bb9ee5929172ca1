# frozen_string_literal: true

require_relative "dropin_helper"

# Sidekiq's testing API in drop-in mode, in a child without the sidekiq gem
# (inside/test_sidekiq_testing.rb holds the assertions).
class DropInSidekiqTestingTest < Minitest::Test
  include Deckhand::DropInHelpers

  def test_sidekiq_testing_runs_on_deckhand_testing
    assert_dropin_tests_pass(File.expand_path("inside/test_sidekiq_testing.rb", __dir__))
  end
end
