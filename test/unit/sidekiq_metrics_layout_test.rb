# frozen_string_literal: true

require "test_helper"

# Sidekiq's histogram, derived from Deckhand's finer one at flush time.
class SidekiqMetricsLayoutTest < Minitest::Test
  Layout = Deckhand::Store::ExecutionMetrics::SidekiqLayout
  Histogram = Deckhand::Store::ExecutionMetrics::Histogram

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
