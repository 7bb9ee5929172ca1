# frozen_string_literal: true

require_relative "../testing"
require_relative "assertions"

# `require "deckhand/testing/minitest"` in test_helper.rb: fake mode, and
# assert_enqueued / refute_enqueued in every Minitest::Test.
Minitest::Test.include(Deckhand::Testing::Assertions) if defined?(Minitest::Test)
