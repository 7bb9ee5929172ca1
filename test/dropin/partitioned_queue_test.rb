# frozen_string_literal: true

require_relative "dropin_helper"

# Sidekiq::Queue on a partitioned queue in drop-in mode, in a child process
# where the sidekiq gem is absent (inside/test_partitioned_queue.rb holds the
# assertions).
class DropInPartitionedQueueTest < Minitest::Test
  include Deckhand::DropInHelpers

  def test_sidekiq_queue_shows_a_partitioned_queue_whole
    assert_dropin_tests_pass(File.expand_path("inside/test_partitioned_queue.rb", __dir__))
  end
end
