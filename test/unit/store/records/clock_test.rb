# frozen_string_literal: true

require "test_helper"

# The fleet's clock: Redis' time as a process can tell it between
# measurements. A measurement against the real Redis, and replies of a Redis
# whose clock is elsewhere (as a host with a wrong clock sees it).
class ClockTest < Minitest::Test
  def clock = @clock ||= Deckhand::Store::Records::Clock.new(Deckhand.config.store)

  def monotonic = Process.clock_gettime(Process::CLOCK_MONOTONIC)

  def realtime = Process.clock_gettime(Process::CLOCK_REALTIME)

  # A TIME reply `ahead` seconds ahead of this host's clock.
  def reply(ahead)
    at = realtime + ahead
    [at.floor.to_s, ((at % 1) * 1_000_000).floor.to_s]
  end

  def test_before_any_measurement_it_is_this_host_s_clock
    assert_nil clock.offset
    assert clock.stale?
    assert_in_delta realtime, clock.now, 0.01
    assert_equal 0.0, clock.correction
  end

  def test_a_measurement_against_the_same_host_s_redis_finds_no_offset
    offset = clock.measure
    assert_in_delta 0, offset, 0.05
    refute clock.stale?
    assert_in_delta realtime, clock.now, 0.001, "a synchronized host reads its own clock"
    assert_equal 0.0, clock.correction
    assert_in_delta clock.now * 1000, clock.now_ms, 2
  end

  def test_redis_400_s_ahead_moves_now_by_400_s
    sent = monotonic
    clock.observe(reply(400), sent, monotonic)
    assert_in_delta 400, clock.offset, 0.01
    assert_in_delta realtime + 400, clock.now, 0.01
    assert_in_delta 400, clock.correction, 0.01
  end

  def test_redis_behind_moves_now_back
    sent = monotonic
    clock.observe(reply(-90), sent, monotonic)
    assert_in_delta realtime - 90, clock.now, 0.01
  end

  # Between measurements the estimate runs on the monotonic clock: it keeps
  # pace with Redis' time, whatever this host's wall clock does meanwhile.
  def test_the_estimate_keeps_pace_between_measurements
    sent = monotonic
    clock.observe(reply(400), sent, monotonic)
    before = clock.now
    sleep 0.2
    assert_in_delta 0.2, clock.now - before, 0.05
  end

  # A reply that took too long to tell a synchronized host from a skewed
  # one does not replace a fresh measurement.
  def test_a_slow_round_trip_does_not_replace_a_fresh_anchor
    clock.measure
    sent = monotonic - 3
    clock.observe(reply(1.5), sent, monotonic)
    assert_in_delta 0, clock.offset, 0.05
  end

  def test_refresh_measures_only_a_stale_clock
    assert_in_delta 0, clock.refresh, 0.05
    sent = monotonic
    clock.observe(reply(400), sent, monotonic)
    clock.refresh
    assert_in_delta 400, clock.offset, 0.01, "a fresh measurement is kept"
  end

  def test_the_heartbeat_s_round_trip_measures_the_store_s_clock
    store = Deckhand::Store.new({url: Deckhand::RedisHarness.url})
    Deckhand::Store::Records::Heartbeats.beat(store, "h:1:clock", counts: [0, 0], metrics: {}, record: {info: "{}", running: {},
                                                                                                        inflight: 0, rtt_us: 0, quiet: false, rss_kb: 0, ttl: 10})
    refute store.clock.stale?
    assert_in_delta 0, store.clock.offset, 0.05
  ensure
    store&.shutdown
  end
end
