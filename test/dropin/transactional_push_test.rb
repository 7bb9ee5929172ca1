# frozen_string_literal: true

require_relative "dropin_helper"

# Sidekiq.default_job_options changed in place and Sidekiq.transactional_push!
# with a class's client_class, in a child process where the sidekiq gem is
# absent (inside/test_transactional_push.rb holds the assertions).
class DropInTransactionalPushTest < Minitest::Test
  include Deckhand::DropInHelpers

  def test_transactional_push_and_client_class_as_in_sidekiq
    assert_dropin_tests_pass(File.expand_path("inside/test_transactional_push.rb", __dir__))
  end
end
