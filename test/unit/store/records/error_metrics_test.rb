# frozen_string_literal: true

require "test_helper"
require "deckhand/api"

# Failures per error class: counted in memory only when a run fails, capped
# in kinds, written per minute and hour beside the per-class metrics.
class ErrorMetricsTest < Minitest::Test
  Tally = Deckhand::Store::Records::ExecutionMetrics::Tally
  ErrorMetrics = Deckhand::Store::Records::ErrorMetrics

  def store = Deckhand.config.store

  def test_the_tally_counts_error_classes_apart_from_the_runs
    tally = Tally.new
    tally.record("ReportJob", 3.0, false)
    assert_equal({}, tally.take_errors, "a success counts no error")
    tally.record_error("Net::ReadTimeout")
    tally.record_error("KeyError", 4)
    assert_equal({"Net::ReadTimeout" => 1, "KeyError" => 4}, tally.take_errors)
    assert_equal({}, tally.take_errors, "a take starts over")
    tally.restore_errors({"KeyError" => 2})
    assert_equal({"KeyError" => 2}, tally.take_errors)
  end

  def test_the_tally_tells_at_most_max_errors_classes_apart
    tally = Tally.new
    (Tally::MAX_ERRORS + 10).times { |i| tally.record_error("Err#{i}") }
    tally.record_error("Err0")
    errors = tally.take_errors
    assert_equal Tally::MAX_ERRORS + 1, errors.size
    assert_equal 10, errors[Tally::OTHER]
    assert_equal 2, errors["Err0"], "a class already told apart keeps counting"
  end

  def test_writes_per_minute_and_hour_and_reads_back
    now = Time.utc(2026, 3, 1, 10, 30, 15)
    prefix = store.layout::METRICS
    store.pipelined { |pipe| ErrorMetrics.flush(pipe, {"KeyError" => 2, "Net::ReadTimeout" => 1}, now: now, prefix: prefix) }
    store.pipelined { |pipe| ErrorMetrics.flush(pipe, {"KeyError" => 1}, now: now + 60, prefix: prefix) }
    minutes = [now, now + 60, now + 120].map { |time| ErrorMetrics.minute_key(time, prefix) }
    assert_equal [{"KeyError" => 2, "Net::ReadTimeout" => 1}, {"KeyError" => 1}, {}], ErrorMetrics.read(store, minutes)
    assert_equal [{"KeyError" => 3, "Net::ReadTimeout" => 1}], ErrorMetrics.read(store, [ErrorMetrics.hour_key(now, prefix)])
    assert_in_delta ErrorMetrics::MINUTE_TTL, redis.call("TTL", minutes[0]), 5
    store.pipelined { |pipe| ErrorMetrics.flush(pipe, {}, now: now, prefix: prefix) }
    redis.call("HSET", minutes[2], "Foreign", "not a number")
    assert_equal [{}], ErrorMetrics.read(store, [minutes[2]]), "what another tool wrote reads as none"
  end
end
