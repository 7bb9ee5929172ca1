# frozen_string_literal: true

require "test_helper"
require_relative "doc_examples"

# docs/auto-balance.md: its configuration example, run as a reader would.
class AutoBalanceGuideTest < Minitest::Test
  def test_the_guide_turns_auto_balance_on_for_one_pool
    block = Deckhand::DocExamples.fetch("auto_balance")
    Module.new.module_eval(block.code, block.path, block.line)
    config = Deckhand.config
    assert config.auto_balance
    assert_equal [[100, %w[reports mail webhooks]]], config.all_capsules.map { |c| [c.concurrency, c.queues] }
  end
end
