# frozen_string_literal: true

require_relative "dropin_helper"

# Every Sidekiq API drop-in mode maps, exercised in a child process where the
# sidekiq gem is absent (inside/test_sidekiq_api.rb holds the assertions).
class DropInSidekiqApiTest < Minitest::Test
  include Deckhand::DropInHelpers

  def test_sidekiq_apis_resolve_to_deckhand_in_a_process_without_the_sidekiq_gem
    assert_dropin_tests_pass(File.expand_path("inside/test_sidekiq_api.rb", __dir__))
  end

  def test_sidekiq_cli_is_deckhands_and_marks_a_server_process
    out, status = dropin_ruby("-e", 'p Sidekiq.server?; require "sidekiq/cli"; p [Sidekiq::CLI < Deckhand::CLI, Sidekiq.server?]')
    assert status.success?, out
    assert_equal "false\n[true, true]\n", out
  end

  def test_drop_in_mode_refuses_to_load_beside_the_sidekiq_gem
    out, status = Open3.capture2e(RbConfig.ruby, "-I", LIB, "-e", 'require "sidekiq"; require "deckhand/sidekiq"')
    refute status.success?
    assert_includes out, "remove `gem \"sidekiq\"` from the Gemfile"
  end

  def test_plain_deckhand_never_loads_drop_in_mode
    out, status = Open3.capture2e(RbConfig.ruby, "-I", LIB, "-e",
      'require "deckhand"; require "deckhand/server"; require "deckhand/api"; require "deckhand/testing"; ' \
      "p [defined?(Sidekiq), $LOAD_PATH.grep(/shims/), $LOADED_FEATURES.grep(%r{deckhand/sidekiq})]")
    assert status.success?, out
    assert_equal "[nil, [], []]", out.strip
  end
end
