# frozen_string_literal: true

require "test_helper"
require "deckhand/api"

# The fleet's throughput per minute (per hour over the long periods), read
# from the per-class metrics the servers keep: what the dashboard's live
# chart starts from.
class ThroughputTest < Minitest::Test
  ExecutionMetrics = Deckhand::Store::Records::ExecutionMetrics

  def flush(now, runs)
    tally = ExecutionMetrics::Tally.new
    runs.each { |klass, count, failed| count.times { |i| tally.record(klass, 5.0, i < failed) } }
    Deckhand.config.store.pipelined { |pipe| ExecutionMetrics.flush(pipe, tally.take, now: now) }
  end

  def test_adds_up_every_class_per_minute
    now = Time.utc(2026, 3, 1, 10, 30, 20)
    flush(now, [["ReportJob", 7, 2], ["Mail|Job", 5, 0]]) # a class name holding "|" too
    flush(now - 120, [["ReportJob", 3, 3]])
    throughput = Deckhand::API::Throughput.new(Deckhand.config, period: "1h", now: now)
    assert_equal 60, throughput.step
    assert_equal 60, throughput.points.size
    assert_equal [Time.utc(2026, 3, 1, 10, 30), 12, 2], throughput.points.last, "the current minute so far, last"
    assert_equal [Time.utc(2026, 3, 1, 10, 28), 3, 3], throughput.points[-3]
    assert_equal Time.utc(2026, 3, 1, 9, 31), throughput.points.first[0]
    assert_equal 15, throughput.points.sum { |_, processed, _| processed }
    refute throughput.empty?
  end

  def test_the_long_periods_read_the_hour_hashes
    now = Time.utc(2026, 3, 1, 10, 30)
    flush(now, [["ReportJob", 4, 1]])
    flush(now - 3600 * 30, [["ReportJob", 6, 0]])
    throughput = Deckhand::API::Throughput.new(Deckhand.config, period: "72h", now: now)
    assert_equal 3600, throughput.step
    assert_equal 72, throughput.points.size
    assert_equal [Time.utc(2026, 3, 1, 10), 4, 1], throughput.points.last
    assert_equal [Time.utc(2026, 2, 28, 4), 6, 0], throughput.points[-31]
  end

  def test_no_metrics_yet_is_a_period_of_zeros_and_an_unknown_period_is_the_hour
    throughput = Deckhand::API::Throughput.new(Deckhand.config, period: "<b>9y</b>")
    assert_equal "1h", throughput.period
    assert_equal 60, throughput.points.size
    assert throughput.points.all? { |_, processed, failed| processed.zero? && failed.zero? }
    assert throughput.empty?
  end
end
