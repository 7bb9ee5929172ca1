# frozen_string_literal: true

require "test_helper"

# expires_in: a job not started by its deadline is dropped unrun.
class ExpiringTest < Minitest::Test
  class ReportJob
    include Deckhand::Job

    deckhand_options expires_in: 3600

    def perform(*args) = Deckhand::TestJobs.record([jid, args])
  end

  def setup
    super
    Deckhand.config = new_config(concurrency: 2, heartbeat_interval: 0.1, scheduler_interval: 0.05, timeout: 2)
  end

  def test_the_deadline_counts_from_the_push_or_the_scheduled_time
    before = Time.now.to_f
    ReportJob.perform_async(1)
    assert_in_delta before + 3600, jobs_in("default").first["expires_at"], 5
    ReportJob.set(expires_in: 60).perform_in(600, 2)
    assert_in_delta before + 660, zset("schedule").first.first["expires_at"], 5
    ReportJob.perform_bulk([[3], [4]])
    assert(jobs_in("default").all? { |job| job["expires_at"].is_a?(Float) })
  end

  def test_an_expired_job_is_dropped_counted_and_its_lock_released
    log = StringIO.new
    Deckhand.config.logger = Logger.new(log)
    past = {"class" => "ExpiringTest::ReportJob", "args" => ["old"], "queue" => "default", "jid" => "e" * 24,
            "retry" => true, "expires_at" => Time.now.to_f - 1, "unique_for" => 60, "unique_key" => "unique:x"}
    redis.call("SET", "unique:x", past["jid"])
    redis.call("LPUSH", "queue:default", JSON.generate(past))
    fresh = ReportJob.perform_async("fresh")
    with_server do |launcher|
      wait_for(message: "the fresh job") { Deckhand::TestJobs.runs.any? }
      wait_for(message: "stat:expired") { redis.call("GET", "stat:expired") == "1" }
      wait_for(message: "acknowledged") { inflight_payloads(launcher.identity).empty? }
    end
    assert_equal [fresh], Deckhand::TestJobs.runs.map(&:first)
    assert_equal "1", redis.call("GET", "stat:expired:#{Time.now.utc.strftime("%Y-%m-%d")}")
    assert_equal 0, redis.call("EXISTS", "unique:x")
    assert_equal 0, redis.call("ZCARD", "retry") + redis.call("ZCARD", "dead")
    assert_equal 1, log.string.scan("expired: not started").size
    assert_equal 1, Deckhand::API.new.stats.expired if defined?(Deckhand::API)
  end

  def test_the_expired_handlers_hear_of_each_dropped_job_once_whatever_they_raise
    log = StringIO.new
    Deckhand.config.logger = Logger.new(log)
    heard = Queue.new
    Deckhand.config.on_expired do |job|
      heard << job["jid"]
      raise NotImplementedError, "handler bug"
    end
    jid = ReportJob.set(expires_in: 0.001).perform_in(0.001, "late")
    with_server do |launcher|
      wait_for(message: "stat:expired") { redis.call("GET", "stat:expired") == "1" }
      wait_for(message: "acknowledged") { inflight_keys(launcher.identity).empty? }
      RecordJob.perform_async("after")
      wait_for(message: "a job after it") { Deckhand::TestJobs.runs.any? }
    end
    assert_equal [jid], Array.new(heard.size) { heard.pop }
    assert_includes log.string, "expired handler raised NotImplementedError: handler bug"
    refute_includes log.string, "crashed"
  end

  def test_an_option_typo_fails_where_declared
    error = assert_raises(ArgumentError) { ReportJob.set(expires_in: "1h") }
    assert_includes error.message, "expires_in"
  end
end
