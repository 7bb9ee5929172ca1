# frozen_string_literal: true

require_relative "../testing"
require_relative "assertions"

begin
  # Loaded here, so the first line of a test_helper.rb (before minitest/autorun
  # or rails/test_help) still gets the assertions.
  require "minitest"
rescue LoadError => e
  raise LoadError, "deckhand/testing/minitest needs the minitest gem: add it to your Gemfile's test group " \
    "(or require deckhand/testing/rspec with RSpec) (#{e.message})"
end

# `require "deckhand/testing/minitest"` in test_helper.rb: fake mode, and
# assert_enqueued / refute_enqueued in every Minitest::Test.
Minitest::Test.include(Deckhand::Testing::Assertions)
