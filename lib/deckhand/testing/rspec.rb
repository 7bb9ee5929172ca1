# frozen_string_literal: true

require_relative "../testing"
require_relative "enqueued_matcher"

# `require "deckhand/testing/rspec"` in spec_helper.rb: fake mode, and
# have_enqueued_deckhand_job in every example group.
RSpec.configure { |config| config.include(Deckhand::Testing::Matchers) } if defined?(RSpec.configure)
