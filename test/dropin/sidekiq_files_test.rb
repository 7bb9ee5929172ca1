# frozen_string_literal: true

require_relative "dropin_helper"

# The files applications require for Sidekiq's public classes, in drop-in
# mode (inside/test_sidekiq_files.rb holds the assertions).
class DropInSidekiqFilesTest < Minitest::Test
  include Deckhand::DropInHelpers

  def test_sidekiq_public_files_load_and_map_to_deckhand
    assert_dropin_tests_pass(File.expand_path("inside/test_sidekiq_files.rb", __dir__))
  end
end
