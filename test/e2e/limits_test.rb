# frozen_string_literal: true

require_relative "e2e_helper"
require_relative "apps/limits"
require "support/reliability_helpers"

# Limiters and queue throttles across two real server processes.
class LimitsE2ETest < Minitest::Test
  include Deckhand::E2EHelpers
  include Deckhand::ReliabilityHelpers

  APP = File.expand_path("apps/limits.rb", __dir__)
  TTL = 1
  THROTTLE = <<~YAML
    heartbeat_interval: 0.2
    heartbeat_ttl: #{TTL}
    throttle:
      api_calls: {rate: 20, per: second}
      exports: {concurrency: 3}
  YAML

  def worker(*args, config: THROTTLE)
    cli = deckhand("-C", config_file(config), *args, app: APP)
    cli.identity
    cli
  end

  def seen(name) = redis.call("LRANGE", "e2e:seen:#{name}", 0, -1).map(&:to_i)

  def done(name) = redis.call("LLEN", "e2e:done:#{name}")

  def test_a_concurrent_limiter_of_two_never_has_more_than_two_holders_across_processes
    2.times { worker("-c", "4") }
    30.times { E2E::SharedJob.perform_async(0.02) }
    wait_for(timeout: 60, message: "every job through the limiter") { done("shared") == 30 }
    assert_equal 30, seen("shared").size
    assert_equal 2, seen("shared").max, "never more than 2 holders (and 2 were reached)"
  end

  def test_the_slot_of_a_sigkilled_holder_comes_back_after_its_lock_timeout
    victim = worker("-c", "1")
    E2E::StickyJob.perform_async(true)
    wait_for(message: "the sticky slot taken") { redis.call("LLEN", "e2e:sticky") == 1 }
    victim.signal("KILL")
    victim.wait_exit(timeout: 5)
    worker("-c", "1", "-q", "other")
    Deckhand::Client.push("class" => "E2E::StickyJob", "args" => [false], "queue" => "other")
    wait_for(timeout: 20, message: "the slot back after lock_timeout") { redis.call("LLEN", "e2e:sticky") == 2 }
    assert_equal "2", redis.call("HGET", "deckhand:limit:metrics:e2e-sticky", "held")
  end

  def test_a_window_of_ten_a_second_lets_at_most_ten_through_in_any_sliding_second_across_processes
    2.times { worker("-c", "4") }
    Deckhand::Client.new.push_bulk("class" => "E2E::WindowJob", "args" => Array.new(30) { [] })
    wait_for(timeout: 60, message: "every check through the window") { redis.call("LLEN", "e2e:window") == 30 }
    passes = redis.call("LRANGE", "e2e:window", 0, -1).map { |pair| pair.split.map(&:to_f) }.sort_by(&:first)
    # Redis saw each pass between its before and after: any 11 span at least a second.
    passes.each_cons(11) { |group| assert_operator group.map(&:last).max - group.first.first, :>=, 0.999 }
  end

  def test_an_over_limit_job_is_rescheduled_with_overrated_then_retried_once_the_budget_is_spent
    Deckhand::Store::Scripts::LimitConcurrent.new(Deckhand.config.store).call("e2e-full", 1, holder: "elsewhere", lock_ms: 600_000)
    worker("-c", "2")
    jid = E2E::FullJob.perform_async
    wait_for(message: "the job in the schedule set") { redis.call("ZCARD", "schedule") == 1 }
    job = JSON.parse(redis.call("ZRANGE", "schedule", 0, 0).first)
    assert_equal [jid, 1, nil], job.values_at("jid", "overrated", "retry_count")
    assert_equal 0, redis.call("ZCARD", "retry")
    redis.call("ZADD", "schedule", 0, redis.call("ZRANGE", "schedule", 0, 0).first) # due now
    wait_for(message: "the job in the retry set") { redis.call("ZCARD", "retry") == 1 }
    job = JSON.parse(redis.call("ZRANGE", "retry", 0, 0).first)
    assert_equal [jid, "Deckhand::Limiter::OverLimit", 0], job.values_at("jid", "error_class", "retry_count")
    assert_empty redis.call("LRANGE", "e2e:full", 0, -1)
  end

  def test_a_throttled_queue_is_paced_while_an_unthrottled_one_runs_at_full_speed
    2.times { worker("-c", "5", "-q", "api_calls", "-q", "fast") }
    Deckhand::Client.new.push_bulk("class" => "E2E::QueueJob", "args" => Array.new(200) { [0] }, "queue" => "api_calls")
    started = monotonic
    Deckhand::Client.new.push_bulk("class" => "E2E::QueueJob", "args" => Array.new(1000) { [0] }, "queue" => "fast")
    wait_for(timeout: 30, message: "the unthrottled queue drained") { done("fast") == 1000 }
    fast = monotonic - started
    assert_operator done("api_calls"), :<, 200, "the throttled queue was not paced"
    wait_for(timeout: 60, message: "the throttled queue drained") { done("api_calls") == 200 }
    paced = monotonic - started
    report = "200 jobs at 20/s drained in #{paced.round(2)}s; 1000 unthrottled jobs in #{fast.round(2)}s"
    puts "\n  #{report}" if ENV["LIMITS_REPORT"]
    # The rate is a floor on the time: 200 jobs, a burst of 2, 20 a second.
    assert_operator paced, :>=, (200 - 2) / 20.0 - 0.1, report
  end

  def test_a_queue_of_concurrency_three_never_runs_more_than_three_across_processes_even_through_a_sigkill
    wait_for_redis_uptime(TTL)
    clis = 2.times.map { worker("-c", "5", "-q", "exports") }
    jids = 60.times.map { Deckhand::Client.push("class" => "E2E::QueueJob", "args" => [0.05], "queue" => "exports") }
    wait_for(message: "some exports done") { done("exports") >= 10 }
    victim = clis.find { |cli| inflight_count(cli.identity, ["exports"]).positive? } || clis.first
    victim.signal("KILL")
    victim.wait_exit(timeout: 5)
    before_kill = seen("exports").size
    # A killed job never ran its ledger's DECR: the count stays that much too high.
    stuck = redis.call("GET", "e2e:now:exports").to_i
    wait_for(timeout: 60, message: "every export done and every slot back") do
      (jids - redis.call("LRANGE", "e2e:done:exports", 0, -1)).empty? && throttle_held("exports").zero?
    end
    assert_operator seen("exports").first(before_kill).max, :<=, 3, "more than 3 exports ran at once"
    assert_operator seen("exports").drop(before_kill).max - stuck, :<=, 3, "more than 3 exports ran at once after the kill"
    assert_equal ["~held"], redis.call("HKEYS", "deckhand:throttle:exports"), "a process still holds slots"
  end

  private

  def throttle_held(queue) = Deckhand::Store::Features::Throttles.usage(Deckhand.config.store, queue)[:held]
end
