# frozen_string_literal: true

require "test_helper"
require "deckhand/api"

class StatsTest < Minitest::Test
  def api = Deckhand::API.new(Deckhand.config)

  def test_totals_and_sizes
    redis.call("SET", "stat:processed", "1204")
    redis.call("SET", "stat:failed", "17")
    3.times { |i| Deckhand::Client.push("class" => "RecordJob", "args" => [i], "queue" => "a") }
    2.times { |i| Deckhand::Client.push("class" => "RecordJob", "args" => [i], "queue" => "b") }
    Deckhand::Client.push("class" => "RecordJob", "args" => [], "at" => Time.now.to_f + 600)
    redis.call("ZADD", "retry", 1, '{"class":"X","jid":"1"}', 2, '{"class":"X","jid":"2"}')
    redis.call("ZADD", "dead", 1, '{"class":"X","jid":"3"}')
    redis.call("SADD", "processes", "host:1:aa", "host:2:bb")
    redis.call("HSET", "host:1:aa", "busy", "3")
    redis.call("HSET", "host:2:bb", "busy", "4")

    stats = api.stats
    assert_equal({processed: 1204, failed: 17, enqueued: 5, busy: 7, processes: 2, scheduled: 1, retries: 2, dead: 1, expired: 0}, stats.to_h)
  end

  def test_empty_redis_reads_as_zeros
    assert_equal({processed: 0, failed: 0, enqueued: 0, busy: 0, processes: 0, scheduled: 0, retries: 0, dead: 0, expired: 0}, api.stats.to_h)
  end

  def test_history_reads_one_counter_per_day_oldest_first
    today = Date.new(2026, 3, 1)
    redis.call("SET", "stat:processed:2026-03-01", "40")
    redis.call("SET", "stat:failed:2026-03-01", "4")
    redis.call("SET", "stat:processed:2026-02-27", "10")
    days = Deckhand::API::History.new(Deckhand.config, days: 3, today: today).to_a
    assert_equal [["2026-02-27", 10, 0], ["2026-02-28", 0, 0], ["2026-03-01", 40, 4]], days.map(&:to_a)
  end

  def test_history_reaches_back_a_year_and_no_further
    today = Date.new(2026, 3, 1)
    redis.call("SET", "stat:processed:2025-03-01", "9")
    year = Deckhand::API::History.new(Deckhand.config, days: 365, today: today)
    assert_equal 365, year.size
    assert_equal "2025-03-02", year.first.date
    longer = Deckhand::API::History.new(Deckhand.config, days: 10_000, today: today)
    assert_equal 366, longer.size
    assert_equal 9, longer.first.processed
  end
end
