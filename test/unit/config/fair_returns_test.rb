# frozen_string_literal: true

require "test_helper"
require "deckhand/server"
require_relative "../../support/fair/fair_returns_shared"

# Due retries and scheduled jobs of a fair queue in plain mode (the cluster
# mode twin: test/cluster/fair_returns_test.rb).
class FairReturnsTest < Minitest::Test
  include Deckhand::FairReturnsTests

  def setup
    super
    Deckhand.config = fair_config
  end

  def keys = Deckhand.config.store.layout
end
