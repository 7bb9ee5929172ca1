# frozen_string_literal: true

require "test_helper"

# The scheduling rules, on fixed clocks: when each tick falls, across
# daylight-saving changes.
class PeriodicTimingTest < Minitest::Test
  def timing(cron, tz) = Deckhand::Config::PeriodicSchedule.new.register(cron, "Job", tz: tz)["Job"].timing

  def ticks(timing, from, count)
    epoch = from.to_i
    Array.new(count) { epoch = timing.next_after(epoch) }.map { |t| Time.at(t).utc }
  end

  def test_spring_forward_runs_a_skipped_wall_clock_time_once_at_the_jump
    # New York, 2026-03-08: clocks jump from 2:00 EST to 3:00 EDT (07:00 UTC); 2:30 never happens.
    t = timing("30 2 * * *", "America/New_York")
    assert_equal [Time.utc(2026, 3, 7, 7, 30), Time.utc(2026, 3, 8, 7, 0), Time.utc(2026, 3, 9, 6, 30)],
      ticks(t, Time.utc(2026, 3, 7, 0), 3)
    assert_equal Time.utc(2026, 3, 8, 7, 0).to_i, t.last_until(Time.utc(2026, 3, 8, 9).to_i)
  end

  def test_spring_forward_does_not_double_a_time_that_also_matches_the_jump
    # 2:00 and 2:30 are skipped, 3:00 exists: one run at 3:00, then 3:30.
    t = timing("0,30 2,3 * * *", "America/New_York")
    assert_equal [Time.utc(2026, 3, 8, 7, 0), Time.utc(2026, 3, 8, 7, 30), Time.utc(2026, 3, 9, 6, 0)],
      ticks(t, Time.utc(2026, 3, 8, 6, 0), 3)
  end

  def test_fall_back_runs_a_repeated_wall_clock_time_once
    # New York, 2026-11-01: 1:30 happens at 05:30 UTC (EDT) and again at 06:30 UTC (EST).
    t = timing("30 1 * * *", "America/New_York")
    assert_equal [Time.utc(2026, 11, 1, 5, 30), Time.utc(2026, 11, 2, 6, 30)], ticks(t, Time.utc(2026, 10, 31, 12), 2)
    assert_equal [Time.utc(2026, 11, 2, 6, 30)], ticks(t, Time.utc(2026, 11, 1, 5, 30), 1)
    assert_equal Time.utc(2026, 11, 1, 5, 30).to_i, t.last_until(Time.utc(2026, 11, 1, 7, 0).to_i)
  end

  def test_hourly_and_faster_entries_follow_real_time_through_the_changes
    t = timing("0 * * * *", "America/New_York")
    assert_equal (4..8).map { |h| Time.utc(2026, 11, 1, h) }, ticks(t, Time.utc(2026, 11, 1, 3, 30), 5)
    assert_equal (6..9).map { |h| Time.utc(2026, 3, 8, h) }, ticks(t, Time.utc(2026, 3, 8, 5, 30), 4)
  end

  def test_zones_are_per_entry
    paris = timing("0 9 * * *", "Europe/Paris")
    tokyo = timing("0 9 * * *", "Asia/Tokyo")
    assert_equal [Time.utc(2026, 7, 1, 7)], ticks(paris, Time.utc(2026, 7, 1), 1)
    assert_equal [Time.utc(2026, 7, 1, 0)], ticks(tokyo, Time.utc(2026, 6, 30, 12), 1)
  end

  def test_seconds_and_last_until
    t = timing("*/2 * * * * *", "UTC")
    assert_equal 1_000, t.last_until(1_000)
    assert_equal 1_000, t.last_until(1_001)
    assert_equal 1_002, t.next_after(1_000)
  end

  def test_fall_back_skips_the_whole_second_pass_of_a_wall_clock_hour
    # Every 10 minutes during 1 a.m.: six runs, not twelve, on the day clocks fall back.
    t = timing("*/10 1 * * *", "America/New_York")
    runs = ticks(t, Time.utc(2026, 11, 1, 4), 7)
    assert_equal (0..5).map { |i| Time.utc(2026, 11, 1, 5, i * 10) } + [Time.utc(2026, 11, 2, 6)], runs
    assert_equal Time.utc(2026, 11, 1, 5, 50).to_i, t.last_until(Time.utc(2026, 11, 1, 6, 45).to_i)
  end
end
