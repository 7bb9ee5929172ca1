# frozen_string_literal: true

require_relative "dropin_helper"

# Client middleware in drop-in mode gets Sidekiq's arguments, checked in a
# child process where the sidekiq gem is absent
# (inside/test_client_middleware_calls.rb holds the assertions).
class DropInClientMiddlewareCallsTest < Minitest::Test
  include Deckhand::DropInHelpers

  def test_client_middleware_gets_the_class_as_given_and_the_redis_pool
    assert_dropin_tests_pass(File.expand_path("inside/test_client_middleware_calls.rb", __dir__))
  end
end
