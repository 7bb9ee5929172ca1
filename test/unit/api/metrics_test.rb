# frozen_string_literal: true

require "test_helper"
require "deckhand/api"

class MetricsTest < Minitest::Test
  ExecutionMetrics = Deckhand::Store::Records::ExecutionMetrics
  Histogram = Deckhand::Store::Records::ExecutionMetrics::Histogram

  def flush(tally, now)
    Deckhand.config.store.pipelined { |pipe| ExecutionMetrics.flush(pipe, tally.take, now: now) }
  end

  def test_histogram_buckets_and_percentiles
    assert_equal 0, Histogram.bucket(0.05)
    assert_equal 8, Histogram.bucket(1.0)
    assert_equal 16, Histogram.bucket(10.0)
    assert_equal Histogram::LAST, Histogram.bucket(5_000_000)
    (1..Histogram::LAST - 1).each do |b|
      assert_equal b, Histogram.bucket(Histogram.upper_bound(b) * 0.999), "bucket #{b}"
    end
    counts = Hash.new(0)
    1.upto(1000) { |ms| counts[Histogram.bucket(ms.to_f)] += 1 }
    assert_in_delta 500, Histogram.percentile(counts, 0.5), 500 * 0.15
    assert_in_delta 950, Histogram.percentile(counts, 0.95), 950 * 0.15
    assert_nil Histogram.percentile({}, 0.5)
  end

  def test_tally_takes_and_restores
    tally = ExecutionMetrics::Tally.new
    tally.record("A", 10.0, false)
    tally.record("A", 30.0, true)
    taken = tally.take
    assert_equal [2, 1, 40.0], taken["A"].first(3)
    assert tally.empty?
    tally.record("A", 1.0, false)
    tally.restore(taken)
    assert_equal [3, 1, 41.0], tally.take["A"].first(3)
  end

  # A chunk records its members at once, each with its share of the time:
  # the same counts as one record a member.
  def test_tally_records_many_runs_of_one_time_at_once
    tally = ExecutionMetrics::Tally.new
    tally.record("A", 2.5, false, 4)
    tally.record("A", 2.5, true, 2)
    count, failed, ms, histogram, failed_ms, failed_histogram = tally.take["A"]
    assert_equal [6, 2, 15.0, 5.0], [count, failed, ms, failed_ms]
    assert_equal({Histogram.bucket(2.5) => 6}, histogram)
    assert_equal({Histogram.bucket(2.5) => 2}, failed_histogram)
  end

  def test_flush_writes_minute_hour_and_day_hashes_with_their_ttls
    tally = ExecutionMetrics::Tally.new
    tally.record("ReportJob", 120.0, false)
    now = Time.utc(2026, 3, 1, 12, 34, 56)
    flush(tally, now)
    minute = redis.call("HGETALL", "deckhand:metrics:m:202603011234")
    assert_equal({"ReportJob|c" => "1", "ReportJob|ms" => "120", "ReportJob|h#{Histogram.bucket(120.0)}" => "1"}, minute)
    assert_equal minute, redis.call("HGETALL", "deckhand:metrics:h:2026030112")
    assert_equal minute, redis.call("HGETALL", "deckhand:metrics:d:20260301")
    assert_in_delta 72 * 3600, redis.call("TTL", "deckhand:metrics:m:202603011234"), 5
    assert_in_delta 366 * 86_400, redis.call("TTL", "deckhand:metrics:d:20260301"), 5
  end

  def test_reads_per_class_totals_and_series_over_a_period
    now = Time.utc(2026, 3, 1, 12, 30, 10)
    tally = ExecutionMetrics::Tally.new
    100.times { |i| tally.record("Fast", 1.0 + (i % 3), i < 5) }
    tally.record("Slow|Odd", 2000.0, false)
    flush(tally, now - 120)
    tally.record("Fast", 2.0, false)
    flush(tally, now)

    metrics = Deckhand::API::Metrics.new(Deckhand.config, period: "1h", now: now)
    slow, fast = metrics.classes
    assert_equal ["Slow|Odd", 1, 0], [slow.name, slow.count, slow.failed]
    assert_equal ["Fast", 101, 5, 96], [fast.name, fast.count, fast.failed, fast.succeeded]
    assert_equal [100, 0, 1], fast.timeline.last(3)
    assert_in_delta 201.0, fast.total_ms, 0.001
    assert_in_delta 2.0, fast.p50_ms, 0.4
    assert_operator fast.p99_ms, :<=, 3.5

    series = metrics.series("Fast")
    assert_equal 60, series.size
    assert_equal now.to_i / 60 * 60, series.last.time.to_i
    assert_equal [100, 5], [series[-3].count, series[-3].failed]
    assert_equal 1, series.last.count
    assert_equal 0, series.first.count
    assert_nil series.first.p95_ms
  end

  def test_long_periods_read_hour_and_day_hashes
    now = Time.utc(2026, 3, 10, 12)
    tally = ExecutionMetrics::Tally.new
    tally.record("Job", 5.0, false)
    flush(tally, now - (5 * 86_400))
    tally.record("Job", 5.0, false)
    flush(tally, now - (10 * 3600))
    day = Deckhand::API::Metrics.new(Deckhand.config, period: "24h", now: now)
    assert_equal 24, day.times.size
    assert_equal [1], day.classes.map(&:count)
    month = Deckhand::API::Metrics.new(Deckhand.config, period: "30d", now: now)
    assert_equal [2], month.classes.map(&:count)
    assert_equal "1h", Deckhand::API::Metrics.new(Deckhand.config, period: "bogus").period
  end

  # A job that takes 2 s when it works and fails in 0.06 ms: its p50 is the
  # successes' 2 s, the failures' timings read apart.
  def test_successes_and_failures_are_timed_apart
    now = Time.utc(2026, 3, 1, 12, 30, 10)
    tally = ExecutionMetrics::Tally.new
    10.times { tally.record("SlowWhenItWorks", 2000.0, false) }
    90.times { tally.record("SlowWhenItWorks", 0.06, true) }
    flush(tally, now)
    minute = redis.call("HGETALL", "deckhand:metrics:m:202603011230")
    assert_equal "90", minute["SlowWhenItWorks|fh0"]
    assert_equal "100", minute["SlowWhenItWorks|c"], "the all-executions fields keep their meaning"
    metrics = Deckhand::API::Metrics.new(Deckhand.config, period: "1h", now: now)
    job = metrics.classes.first
    assert job.split?
    assert_in_delta 2000.0, job.p50_ms, 2000 * 0.2
    assert_in_delta 2000.0, job.average_ms, 0.01
    assert_operator job.failed_p50_ms, :<, 0.1
    assert_in_delta 0.06, job.failed_average_ms, 0.001
    assert_equal job.p50_ms.round(3), job.to_h[:p50_ms]
    point = metrics.series("SlowWhenItWorks").last
    assert_in_delta 2000.0, point.p95_ms, 2000 * 0.2
    assert_operator point.failed_p95_ms, :<, 0.1
  end

  def test_data_written_before_the_split_still_reads
    now = Time.utc(2026, 3, 1, 12, 30, 10)
    key = "deckhand:metrics:m:202603011230"
    redis.call("HSET", key, "Old|c", 4, "Old|f", 2, "Old|ms", "40", "Old|h#{Histogram.bucket(10.0)}", 4)
    old = Deckhand::API::Metrics.new(Deckhand.config, period: "1h", now: now).classes.first
    assert_equal [4, 2], [old.count, old.failed]
    refute old.split?
    assert_in_delta 10.0, old.average_ms, 0.001
    assert_in_delta 10.0, old.p50_ms, 10 * 0.15
    assert_nil old.failed_p50_ms
  end
end
