# frozen_string_literal: true

require_relative "dropin_helper"

# Sidekiq::Launcher on a Deckhand server, checked in a child process where
# the sidekiq gem is absent (inside/test_sidekiq_launcher.rb holds the
# assertions).
class DropInSidekiqLauncherTest < Minitest::Test
  include Deckhand::DropInHelpers

  def test_sidekiq_s_launcher_its_heartbeat_record_events_and_process_title
    assert_dropin_tests_pass(File.expand_path("inside/test_sidekiq_launcher.rb", __dir__))
  end
end
