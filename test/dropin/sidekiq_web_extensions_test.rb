# frozen_string_literal: true

require_relative "dropin_helper"

# Sidekiq Web extensions (plugins' tabs and pages) in drop-in mode, checked
# in a child process where the sidekiq gem is absent
# (inside/test_web_extensions.rb holds the assertions).
class DropInSidekiqWebExtensionsTest < Minitest::Test
  include Deckhand::DropInHelpers

  def test_registered_extensions_serve_inside_deckhands_dashboard_behind_its_checks
    assert_dropin_tests_pass(File.expand_path("inside/test_web_extensions.rb", __dir__))
  end
end
