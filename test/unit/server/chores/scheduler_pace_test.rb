# frozen_string_literal: true

require "test_helper"

# How long a scheduler waits between polls: scaled by the live processes,
# or a fixed average (scheduler_poll_average), each wait drawn from half to
# one and a half of it.
class SchedulerPaceTest < Minitest::Test
  def test_the_average_is_the_interval_times_the_processes_unless_one_is_set
    config = Deckhand::Config.new(scheduler_interval: 2.0)
    pace = Deckhand::Server::Chores::SchedulerPace.new(config)
    assert_equal [2.0, 2.0, 20.0], [pace.average(0), pace.average(1), pace.average(10)]
    config.scheduler_poll_average = 15
    assert_equal [15, 15], [pace.average(1), pace.average(40)], "the same whatever the fleet's size"
  end

  def test_each_wait_is_half_to_one_and_a_half_of_the_average_and_a_seed_repeats_them
    config = Deckhand::Config.new(scheduler_interval: 10.0)
    pace = Deckhand::Server::Chores::SchedulerPace.new(config, random: Random.new(7))
    waits = Array.new(1000) { pace.wait(3) }
    assert waits.all? { |wait| wait.between?(15.0, 45.0) }
    assert_in_delta 30.0, waits.sum / waits.size, 1.0
    pace.random = Random.new(7)
    assert_equal waits.first(5), Array.new(5) { pace.wait(3) }
  end

  def test_scheduler_poll_average_is_a_number_of_seconds_or_nil
    assert_nil Deckhand::Config.new.scheduler_poll_average
    assert_equal 0.5, Deckhand::Config.new(scheduler_poll_average: 0.5).scheduler_poll_average
    ["5", 0, -1, 7200].each do |bad|
      error = assert_raises(Deckhand::ConfigError) { Deckhand::Config.new(scheduler_poll_average: bad) }
      assert_match(/scheduler_poll_average must be a number of seconds from 0.01 to 3600, or nil/, error.message)
    end
  end
end
