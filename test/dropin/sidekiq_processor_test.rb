# frozen_string_literal: true

require_relative "dropin_helper"

# Sidekiq::Processor, BasicFetch, the interrupt handler and a started
# Scheduled::Poller on Deckhand's parts, checked in a child process where
# the sidekiq gem is absent (inside/test_sidekiq_processor.rb holds the
# assertions).
class DropInSidekiqProcessorTest < Minitest::Test
  include Deckhand::DropInHelpers

  def test_sidekiq_s_processor_runs_a_job_handed_to_it_on_deckhand_s_parts
    assert_dropin_tests_pass(File.expand_path("inside/test_sidekiq_processor.rb", __dir__))
  end
end
