# frozen_string_literal: true

require "test_helper"
require "deckhand/api"

# Failures per error class over a period: the three most failing classes
# apart, the rest as one series, zeros where nothing failed.
class FailuresByErrorTest < Minitest::Test
  ErrorMetrics = Deckhand::Store::Records::ErrorMetrics

  def flush(now, errors)
    store = Deckhand.config.store
    store.pipelined { |pipe| ErrorMetrics.flush(pipe, errors, now: now, prefix: store.layout::METRICS) }
  end

  def test_the_most_failing_classes_apart_and_the_rest_together
    now = Time.utc(2026, 3, 1, 10, 30, 15)
    flush(now, {"KeyError" => 5, "Net::ReadTimeout" => 9, "IOError" => 1, "Timeout::Error" => 2, "RangeError" => 1})
    flush(now - 180, {"KeyError" => 1})
    failures = Deckhand::API::FailuresByError.new(Deckhand.config, period: "1h", now: now)
    assert_equal 60, failures.times.size
    assert_equal ["Net::ReadTimeout", "KeyError", "Timeout::Error", nil], failures.series.map(&:first)
    assert_equal [0, 0, 1, 0, 0, 5], failures.series[1][1].last(6)
    assert_equal 2, failures.series.last[1].last, "IOError and RangeError together"
    refute failures.empty?
    hours = Deckhand::API::FailuresByError.new(Deckhand.config, period: "24h", now: now)
    assert_equal 24, hours.times.size
    assert_equal 6, hours.series.assoc("KeyError")[1].last, "the hour adds up its minutes"
  end

  def test_nothing_failed_is_empty
    failures = Deckhand::API::FailuresByError.new(Deckhand.config, period: "nonsense")
    assert_equal "1h", failures.period
    assert failures.empty?
    assert_equal [], failures.series
  end
end
