# frozen_string_literal: true

require_relative "dropin_helper"

# Sidekiq::Queue on a queue with jobs at priority levels in drop-in mode, in
# a child process where the sidekiq gem is absent
# (inside/test_priority_queue.rb holds the assertions).
class DropInPriorityQueueTest < Minitest::Test
  include Deckhand::DropInHelpers

  def test_sidekiq_queue_enumerates_and_deletes_the_jobs_at_priority_levels
    assert_dropin_tests_pass(File.expand_path("inside/test_priority_queue.rb", __dir__))
  end
end
