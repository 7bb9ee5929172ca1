# frozen_string_literal: true

require "test_helper"
require "deckhand/api"

# A queue's depth and latency over a period, from the per-minute samples:
# a point a minute, or the worst of 5 or 15 minutes over the long periods;
# a minute without a sample is a gap.
class QueueHistoryTest < Minitest::Test
  QueueSamples = Deckhand::Store::Records::QueueSamples

  def write(minute, size, latency) = QueueSamples.write(Deckhand.config.store, minute, [["mailers", size, latency]])

  def test_a_point_a_minute_with_gaps
    now = 60.0 * 29_000_000 + 25 # 25 s into minute 29,000,000
    write(29_000_000, 12, 3.5)
    write(29_000_000 - 2, 40, 61.0)
    write(29_000_000 - 60, 99, 99.0) # before the hour shown
    history = Deckhand::API::QueueHistory.new(Deckhand.config, "mailers", period: "1h", now: now)
    assert_equal 60, history.points.size
    assert_equal [Time.at(60 * 29_000_000).utc, 12, 3.5], history.points.last
    assert_equal [40, 61.0], history.points[-3][1, 2]
    assert_equal [nil, nil], history.points[-2][1, 2], "no sample that minute: a gap"
    assert_equal Time.at(60 * (29_000_000 - 59)).utc, history.points.first[0]
    refute history.empty?
  end

  def test_the_long_periods_keep_the_worst_of_each_point
    first = 29_000_010 # a multiple of 15
    write(first, 5, 1.0)
    write(first + 7, 50, 0.5)
    write(first + 14, 8, 9.0)
    history = Deckhand::API::QueueHistory.new(Deckhand.config, "mailers", period: "72h", now: 60.0 * (first + 14))
    assert_equal 900, history.step
    assert_equal 288, history.points.size
    assert_equal [Time.at(60 * first).utc, 50, 9.0], history.points.last
  end

  def test_a_queue_never_sampled_is_empty
    history = Deckhand::API::QueueHistory.new(Deckhand.config, "never", period: "24h")
    assert history.empty?
    assert_equal 288, history.points.size
    assert history.points.all? { |_, size, latency| size.nil? && latency.nil? }
  end
end
