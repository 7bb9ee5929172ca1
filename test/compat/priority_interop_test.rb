# frozen_string_literal: true

require "test_helper"
require_relative "compat_helper"

# Jobs Deckhand pushed with a priority (docs/priority.md), on a real Sidekiq
# server (7.3 or 8.1 as the bundle has it): one reading the queue alone gets
# the jobs of no priority, in push order; one that lists the levels' lists
# as queues, in strict order, gets every job in Deckhand's order.
class PriorityInteropTest < Minitest::Test
  include Deckhand::CompatTest

  def push(n, priority = nil)
    Deckhand::Client.push({"class" => "MigratingJob", "args" => [n], "priority" => priority}.compact)
  end

  def test_a_sidekiq_process_listing_the_levels_gets_every_job_in_order
    [[1, nil], [2, 5], [3, -10], [4, nil], [5, -10], [6, 5]].each { |n, priority| push(n, priority) }
    Deckhand::SidekiqHarness.server(queues: ["default"], concurrency: 1) do
      wait_for(timeout: 10, message: "Sidekiq to run the jobs of no priority") { Deckhand::SidekiqHarness.runs.size >= 2 }
      sleep 0.3 # nothing more comes: the levels are not its queues
    end
    assert_equal [[1], [4]], Deckhand::SidekiqHarness.runs.map { |_, args, _| args }
    Deckhand::SidekiqHarness.server(queues: %w[default~r-10 default default~r5], concurrency: 1) do
      wait_for(timeout: 10, message: "Sidekiq to run every job") { Deckhand::SidekiqHarness.runs.size >= 6 }
    end
    assert_equal [[1], [4], [3], [5], [2], [6]], Deckhand::SidekiqHarness.runs.map { |_, args, _| args }
    assert_equal [0, 0, 0], %w[queue:default queue:default~r-10 queue:default~r5].map { |key| redis.call("LLEN", key) }
  end
end
