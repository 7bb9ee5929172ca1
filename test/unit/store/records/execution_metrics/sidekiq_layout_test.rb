# frozen_string_literal: true

require "test_helper"

# Sidekiq's histogram, derived from Deckhand's finer one at flush time.
class SidekiqMetricsLayoutTest < Minitest::Test
  Layout = Deckhand::Store::Records::ExecutionMetrics::SidekiqLayout
  Histogram = Deckhand::Store::Records::ExecutionMetrics::Histogram

  def test_no_deckhand_bucket_holds_two_sidekiq_bounds
    (0..Histogram::LAST).each do |b|
      inside = Layout::BUCKETS_MS.count { |bound| bound > Histogram.lower_bound(b) && bound <= Histogram.upper_bound(b) }
      assert_operator inside, :<=, 1, "Deckhand bucket #{b}"
    end
  end

  def test_a_bucket_away_from_sidekiqs_bounds_lands_exactly
    [0.05, 1, 12.5, 85, 600, 2000, 80_000, 500_000].each do |ms|
      assert_equal({Layout.search(ms) => 5}, Layout.histogram_of({Histogram.bucket(ms) => 5}), "#{ms} ms")
    end
  end

  def test_a_bucket_holding_a_bound_is_split_and_keeps_its_count
    straddling = Histogram.bucket(20.0) # 17.8 to 23.7 ms
    split = Layout.histogram_of({straddling => 100})
    assert_equal [0, 1], split.keys.sort
    assert_equal 100, split.values.sum
    assert_includes 30..70, split[0], "about the share of 17.8..23.7 ms below 20 ms"
  end

  # Sidekiq 7.3 names the minute hash with Time#hour and #min (unpadded) and
  # the histogram with strftime("%d-%H:%-M"): the hour padded there, so the
  # two differ before 10:00 UTC.
  def test_keys_as_sidekiq_7_names_them
    time = Time.utc(2026, 3, 4, 5, 6)
    assert_equal "j|20260304|5:6", Layout.minute_key(time)
    assert_equal "HardJob-04-05:6", Layout.histogram_key("HardJob", time)
    late = Time.utc(2026, 3, 4, 23, 59)
    assert_equal "j|20260304|23:59", Layout.minute_key(late)
    assert_equal "HardJob-04-23:59", Layout.histogram_key("HardJob", late)
  end
end

# Sidekiq 8.1's layout: its minute hash pads the minute, its 10-minute
# rollup keeps the minute's tens digit, its histograms pad nothing and start
# with "h|"; and the fleet decides which layouts a heartbeat writes.
class Sidekiq8MetricsLayoutTest < Minitest::Test
  Layout = Deckhand::Store::Records::ExecutionMetrics::Sidekiq8Layout
  Metrics = Deckhand::Store::Records::ExecutionMetrics

  def test_keys_as_sidekiq_8_names_them
    time = Time.utc(2026, 3, 4, 5, 6)
    assert_equal ["j|260304|5:06", "j|260304|5:0", "h|HardJob-4-5:6"], [Layout.minute_key(time), Layout.rollup_key(time), Layout.histogram_key("HardJob", time)]
    late = Time.utc(2026, 12, 14, 23, 59)
    assert_equal ["j|261214|23:59", "j|261214|23:5", "h|HardJob-14-23:59"], [Layout.minute_key(late), Layout.rollup_key(late), Layout.histogram_key("HardJob", late)]
  end

  def test_a_flush_writes_the_layouts_asked_for_with_sidekiqs_counts_and_expiries
    tally = Deckhand::Store::Records::ExecutionMetrics::Tally.new
    tally.record("HardJob", 12.5, false)
    tally.record("HardJob", 40.0, true)
    now = Time.utc(2026, 3, 4, 5, 6)
    Metrics.write(Deckhand.config.store, tally.take, now: now, sidekiq: [8])
    assert_equal({"HardJob|p" => "2", "HardJob|f" => "1", "HardJob|ms" => "13"}, redis.call("HGETALL", "j|260304|5:06"))
    assert_equal({"HardJob|p" => "2", "HardJob|f" => "1", "HardJob|ms" => "13"}, redis.call("HGETALL", "j|260304|5:0"))
    assert_equal [1, *Array.new(25, 0)], redis.call("BITFIELD_RO", "h|HardJob-4-5:6", *(0..25).flat_map { |i| ["GET", "u16", "##{i}"] })
    assert_in_delta 72 * 3600, redis.call("TTL", "j|260304|5:0"), 5
    assert_in_delta 8 * 3600, redis.call("TTL", "j|260304|5:06"), 5
    assert_equal 0, redis.call("EXISTS", "j|20260304|5:6"), "Sidekiq 7's layout was not asked for"
  end

  def test_the_fleet_decides_the_layouts
    fleet = Deckhand::Config::FleetVersions.new(new_config)
    assert_equal [7, 8], fleet.sidekiq_metrics, "no Sidekiq process: a dashboard of either version may read them"
    redis.call("SADD", "processes", "sk8:1:a")
    redis.call("HSET", "sk8:1:a", "info", JSON.generate("version" => "8.1.7"))
    fleet.refresh(Deckhand.config.store)
    assert_equal [8], fleet.sidekiq_metrics
    assert_equal "Sidekiq::ActiveJob::Wrapper", fleet.active_job_class
    redis.call("SADD", "processes", "sk7:2:b")
    redis.call("HSET", "sk7:2:b", "info", JSON.generate("version" => "7.3.10"))
    fleet.refresh(Deckhand.config.store)
    assert_equal [7, 8], fleet.sidekiq_metrics
    assert_equal "ActiveJob::QueueAdapters::SidekiqAdapter::JobWrapper", fleet.active_job_class
    redis.call("SREM", "processes", "sk8:1:a")
    fleet.refresh(Deckhand.config.store)
    assert_equal [7], fleet.sidekiq_metrics
  end
end
