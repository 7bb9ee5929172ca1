# frozen_string_literal: true

require_relative "dropin_helper"

# The Content-Security-Policy of drop-in mode's dashboard, as each Sidekiq
# version drop-in mode stands in for has it, checked in a child process
# where the sidekiq gem is absent (inside/test_sidekiq_web_policy.rb holds
# the assertions).
class DropInSidekiqWebPolicyTest < Minitest::Test
  include Deckhand::DropInHelpers

  INSIDE = File.expand_path("inside/test_sidekiq_web_policy.rb", __dir__)

  def test_sidekiq_8_s_policy_with_styles_by_nonce
    assert_dropin_tests_pass(INSIDE, env: {"DECKHAND_SIDEKIQ" => "8"})
  end

  def test_sidekiq_7_s_policy_with_inline_styles
    assert_dropin_tests_pass(INSIDE, env: {"DECKHAND_SIDEKIQ" => "7"})
  end
end
