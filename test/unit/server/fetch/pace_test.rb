# frozen_string_literal: true

require "test_helper"

class PaceTest < Minitest::Test
  # A Pace on a clock the test moves.
  class ManualPace < Deckhand::Server::Fetch::Pace
    attr_accessor :clock

    def initialize(**)
      @clock = 0.0
      super
    end

    private

    def now = @clock
  end

  def pace_after(jobs_per_second, round_trip: nil, prefetch: 0.0, starved: false)
    pace = ManualPace.new(concurrency: 10, prefetch: prefetch, window: 0.01)
    pace.round_trip(round_trip) if round_trip
    pace.starved = starved
    (jobs_per_second / 10).times { pace.completed }
    pace.clock += 0.1
    pace.ahead
  end

  def test_slow_jobs_are_not_fetched_ahead_so_an_idle_process_can_start_them
    assert_equal 0, pace_after(50) # less than one job within the window
    assert_equal 1, pace_after(100)
  end

  def test_prefetch_sets_a_floor
    assert_equal 10, pace_after(50, prefetch: 1.0) # 1.0 x 10 threads
  end

  def test_fast_jobs_travel_in_batches_sized_to_the_window
    assert_equal 500, pace_after(50_000) # 10 ms of work
  end

  def test_a_distant_redis_stretches_the_window_to_four_round_trips
    assert_equal 400, pace_after(20_000, round_trip: 0.005) # 20 ms of work at 20k/s
    assert_equal 1000, pace_after(1_000_000, round_trip: 0.0125) # capped
  end

  def test_threads_that_ran_dry_before_a_fetch_stretch_the_window_to_a_time_slice
    assert_equal 200, pace_after(20_000) # 10 ms of work
    assert_equal 1000, pace_after(10_000, starved: true) # 100 ms of work
    assert_equal 20, pace_after(200, starved: true) # still only what the process starts in 100 ms
  end

  def test_the_window_is_back_to_its_setting_once_fetches_arrive_in_time
    pace = ManualPace.new(concurrency: 10, prefetch: 0.0, window: 0.01)
    pace.starved = true
    1_000.times { pace.completed }
    pace.clock += 0.1
    assert_equal 1000, pace.ahead
    pace.starved = false
    1_000.times { pace.completed }
    pace.clock += 0.1
    assert_equal 100, pace.ahead
  end
end
