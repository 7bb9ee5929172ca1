# frozen_string_literal: true

require_relative "dropin_helper"

# Drop-in mode's defaults as Sidekiq 7.3 where they differ from Deckhand's, checked
# in a child process where the sidekiq gem is absent
# (inside/test_sidekiq_defaults.rb holds the assertions).
class DropInSidekiqDefaultsTest < Minitest::Test
  include Deckhand::DropInHelpers

  def test_timestamps_dead_set_size_and_capsule_middleware_as_in_sidekiq_7
    assert_dropin_tests_pass(File.expand_path("inside/test_sidekiq_defaults.rb", __dir__), env: {"DECKHAND_SIDEKIQ" => "7"})
  end
end
