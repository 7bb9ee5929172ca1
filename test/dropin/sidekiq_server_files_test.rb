# frozen_string_literal: true

require_relative "dropin_helper"

# The files of Sidekiq's server in drop-in mode: they load, Sidekiq's own
# machinery says what Deckhand does instead, and what an application reaches
# runs on Deckhand (inside/test_sidekiq_server_files.rb holds the assertions).
class DropInSidekiqServerFilesTest < Minitest::Test
  include Deckhand::DropInHelpers

  def test_sidekiq_server_files_load_and_run_on_deckhand
    assert_dropin_tests_pass(File.expand_path("inside/test_sidekiq_server_files.rb", __dir__))
  end
end
