# frozen_string_literal: true

require_relative "dropin_helper"

# Sidekiq 7's dashboard forms posted to drop-in mode's Sidekiq::Web, checked
# in a child process where the sidekiq gem is absent
# (inside/test_sidekiq_web_forms.rb holds the assertions).
class DropInSidekiqWebFormsTest < Minitest::Test
  include Deckhand::DropInHelpers

  def test_sidekiqs_forms_act_through_deckhands_api_behind_the_csrf_check
    assert_dropin_tests_pass(File.expand_path("inside/test_sidekiq_web_forms.rb", __dir__))
  end
end
