# frozen_string_literal: true

require "test_helper"

# Each limiter against a real Redis: what passes, what is refused, what a
# refusal says, and that state expires.
class LimiterTest < Minitest::Test
  Limiter = Deckhand::Limiter

  def test_window_lets_at_most_size_through_in_any_sliding_period
    limiter = Limiter.window("search", 10, :second)
    passes = Queue.new
    threads = 2.times.map do
      Thread.new do
        12.times do
          before = monotonic
          limiter.within_limit { passes << [before, monotonic] }
        rescue Limiter::OverLimit => e
          sleep e.retry_after # as the refusal says, then try again
          retry
        end
      end
    end
    threads.each(&:join)
    times = Array.new(passes.size) { passes.pop }.sort_by(&:first)
    assert_equal 24, times.size
    # Any 11 passes span at least the period: Redis saw each between its before and after.
    times.each_cons(11) { |group| assert_operator group.map(&:last).max - group.first.first, :>=, 0.999 }
    assert_equal "10", redis.call("HGET", "deckhand:limit:metrics:search", "size")
    assert_operator redis.call("HGET", "deckhand:limit:metrics:search", "over").to_i, :>, 0
  end

  def test_window_refuses_at_once_without_a_wait_timeout
    limiter = Limiter.window("w", 2, :minute)
    2.times { limiter.within_limit { nil } }
    error = assert_raises(Limiter::OverLimit) { limiter.within_limit { flunk "ran over the limit" } }
    assert_same limiter, error.limiter
    assert_operator error.retry_after, :<=, 60
    assert_operator error.retry_after, :>, 50
    assert_equal "1", redis.call("HGET", "deckhand:limit:metrics:w", "over")
    assert_operator redis.call("PTTL", "deckhand:limit:window:w"), :>, 0
  end

  def test_bucket_aligns_to_the_clock
    # Six checks within one second of Redis' clock (a boundary between them spoils a try).
    error, first, last = 5.times.lazy.filter_map { |attempt| refusal_within_one_second("erp-#{attempt}") }.first
    refute_nil error, "never ran six checks within one second"
    boundary = (first / 1000 + 1) * 1000
    assert_includes (boundary - last)..(boundary - first), (error.retry_after * 1000).round
  end

  def test_leaky_takes_a_burst_then_drips_back
    limiter = Limiter.leaky("github", 3, 3)
    started = monotonic
    3.times { limiter.within_limit { nil } }
    error = assert_raises(Limiter::OverLimit) { limiter.within_limit { nil } }
    elapsed_ms = (monotonic - started) * 1000
    assert_operator error.retry_after * 1000, :<=, 1000
    assert_operator error.retry_after * 1000, :>=, 1000 - elapsed_ms - 1
    patient = Limiter.leaky("github", 3, 3, wait_timeout: 3)
    assert_equal :dripped, patient.within_limit { :dripped }
    assert_equal "1", redis.call("HGET", "deckhand:limit:metrics:github", "waited")
  end

  def test_points_spend_an_estimate_and_give_back_the_difference
    limiter = Limiter.points("shopify", 100, refill: 1, per: :second)
    limiter.within_limit(estimate: 60) { nil }
    error = assert_raises(Limiter::OverLimit) { limiter.within_limit(estimate: 60) { flunk "over budget" } }
    assert_operator error.retry_after, :<=, 20.0 # 20 points short at 1 a second
    limiter.within_limit(estimate: 40) { |handle| handle.points_used(5) } # 35 points back
    limiter.within_limit(estimate: 35) { nil } # passes only with the 35 back (or after 35 s of refill)
    assert_raises(Limiter::OverLimit) { limiter.within_limit(estimate: 35) { flunk "spent twice" } }
    assert_raises(ArgumentError) { limiter.within_limit(estimate: 101) { nil } }
  end

  def test_concurrent_never_has_more_than_size_holders
    limiter = Limiter.concurrent("stripe", 2, wait_timeout: 10)
    holding = 0
    most = 0
    lock = Mutex.new
    threads = 6.times.map do
      Thread.new do
        3.times do
          limiter.within_limit do
            lock.synchronize { most = [most, holding += 1].max }
            Thread.pass
            lock.synchronize { holding -= 1 }
          end
        end
      end
    end
    threads.each(&:join)
    assert_equal 2, most
    assert_equal "18", redis.call("HGET", "deckhand:limit:metrics:stripe", "held")
    assert_equal 0, Deckhand::Store::Limits.holders(Deckhand.config.store, "stripe")
  end

  def test_concurrent_refuses_when_full_and_reclaims_a_dead_holder_after_its_lock
    full = Limiter.concurrent("erp", 1, wait_timeout: 0)
    # A holder from a process that died: its lock expires in 300 ms.
    Deckhand::Store::Scripts::LimitConcurrent.new(Deckhand.config.store).call("erp", 1, holder: "dead", lock_ms: 300)
    assert_raises(Limiter::OverLimit) { full.within_limit { flunk "two holders" } }
    patient = Limiter.concurrent("erp", 1, wait_timeout: 5)
    assert_equal :reclaimed, patient.within_limit { :reclaimed }
    assert_equal "1", redis.call("HGET", "deckhand:limit:metrics:erp", "reclaimed")
    assert_equal "1", redis.call("HGET", "deckhand:limit:metrics:erp", "over")
  end

  def test_a_waiter_takes_the_slot_a_release_frees
    limiter = Limiter.concurrent("db", 1, wait_timeout: 10, lock_timeout: 60)
    entered = Queue.new
    leave = Queue.new
    holder = Thread.new { limiter.within_limit { entered << true && leave.pop } }
    entered.pop
    waiter = Thread.new { limiter.within_limit { :mine } }
    wait_for(message: "the waiter to block in Redis") { blocked_in_blpop? }
    leave << true
    assert_equal :mine, waiter.value
    holder.join
    assert_equal "1", redis.call("HGET", "deckhand:limit:metrics:db", "waited")
  end

  def test_unlimited_never_touches_redis
    assert_equal 3, Limiter.unlimited.within_limit { |handle| handle.points_used(3) }
    assert_empty redis.call("KEYS", "deckhand:limit*")
  end

  def test_bad_settings_are_refused_where_they_are_made
    assert_match(/non-empty String/, assert_raises(ArgumentError) { Limiter.window("has space", 1, :second) }.message)
    assert_match(/per must be/, assert_raises(ArgumentError) { Limiter.bucket("b", 1, :fortnight) }.message)
    assert_match(/size must be/, assert_raises(ArgumentError) { Limiter.concurrent("c", 0) }.message)
    assert_match(/backoff/, assert_raises(ArgumentError) { Limiter.leaky("l", 1, :second, backoff: 5) }.message)
    assert_match(/exception class/, assert_raises(ArgumentError) { Limiter.over_limit_error(String) }.message)
  end

  def test_metrics_list_filters_by_name
    Limiter.window("api-1", 5, :second).within_limit { nil }
    Limiter.bucket("erp", 5, :second).within_limit { nil }
    names = Deckhand::Store::Limits.list(Deckhand.config.store, filter: "api").map { |row| row["name"] }
    assert_equal ["api-1"], names
  end

  private

  # A connection blocked right now (flags=b) in BLPOP; an idle one also shows its last command.
  def blocked_in_blpop? = redis.call("CLIENT", "LIST").each_line.any? { |line| line.match?(/ flags=b .*cmd=blpop/) }

  def refusal_within_one_second(name)
    limiter = Limiter.bucket(name, 5, :second)
    first = redis_ms
    5.times { limiter.within_limit { nil } }
    error = assert_raises(Limiter::OverLimit) { limiter.within_limit { nil } }
    last = redis_ms
    [error, first, last] if first / 1000 == last / 1000
  rescue Limiter::OverLimit, Minitest::Assertion
    nil # the boundary passed between two checks
  end

  def redis_ms
    seconds, micros = redis.call("TIME")
    seconds.to_i * 1000 + micros.to_i / 1000
  end
end
