# frozen_string_literal: true

require_relative "e2e_helper"
require "support/reliability_helpers"
require "deckhand/api"

# Real servers whose host clock is wrong (libfaketime moves the wall clock of
# one `deckhand` process by hundreds of seconds; its monotonic clock is left
# alone, as a wrong NTP setting or a resumed VM would leave it). Deckhand
# writes and compares every time another host reads by Redis' clock, so such
# a server takes no live process's jobs, runs nothing early or late, and its
# own jobs come back on time when it dies. Each job records its runs by
# Redis' clock (e2e:clock:runs).
class ClockSkewTest < Minitest::Test
  include Deckhand::E2EHelpers
  include Deckhand::ReliabilityHelpers

  APP = File.expand_path("apps/clock_jobs.rb", __dir__)
  FAKETIME = "/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1"
  INTERVAL = 0.2
  TTL = 1
  # The documented bound (2 * heartbeat_interval + reaper_interval * 1.2),
  # plus slack for a shared machine.
  BOUND = (2 * INTERVAL) + (INTERVAL * 1.2) + 3
  # Short, so that a live process judged by a wrong clock would be taken
  # within the test: silent past hung_after, connections or not.
  HUNG_AFTER = 5

  def setup
    super
    require_faketime
    wait_for_redis_uptime(TTL)
    @config = config_file("heartbeat_interval: #{INTERVAL}\nheartbeat_ttl: #{TTL}\nhung_after: #{HUNG_AFTER}\n" \
      "scheduler_interval: 0.1\n")
  end

  def test_a_server_400_s_ahead_takes_no_job_from_a_live_process
    assert_no_live_process_loses_jobs("+400s")
  end

  def test_a_server_400_s_behind_loses_no_job_to_a_live_process
    assert_no_live_process_loses_jobs("-400s")
  end

  def test_a_server_400_s_ahead_runs_scheduled_jobs_when_they_are_due_by_redis_clock
    server("+400s")
    pushed_at = redis_time
    jid = push("E2E::StampJob", 0, at: Time.now.to_f + 3)
    wait_for(timeout: 15, message: "the scheduled job to run") { runs.size == 1 }
    started = runs.first[2]
    assert_operator started - pushed_at, :>=, 2.9, "the job scheduled 3 s ahead started #{(started - pushed_at).round(2)}s after its push"
    assert_equal jid, runs.first[0]
  end

  def test_a_server_400_s_ahead_writes_a_retry_due_by_redis_clock
    server("+400s")
    jid = push("E2E::FailStampJob")
    wait_for(message: "the retry to be written") { zset("retry").any? }
    job, score = zset("retry").first
    failed = runs.first[2]
    assert_equal jid, job["jid"]
    assert_in_delta failed + 30, score, 2, "the retry (due 30 s after the failure) is due #{(score - failed).round(1)}s after it by Redis' clock"
    assert_in_delta failed, Deckhand::Payload.to_epoch(job["failed_at"]), 2, "failed_at is Redis' time of the failure"
  end

  def test_a_sigkilled_server_90_s_ahead_has_its_jobs_back_within_the_bound
    assert_recovered_in_bound("+90s")
  end

  def test_a_sigkilled_server_400_s_behind_has_its_jobs_back_within_the_bound
    assert_recovered_in_bound("-400s")
  end

  def test_the_offset_is_published_and_logged
    skewed = server("-400s")
    wait_for(message: "the offset in the process record") { redis.call("HGET", skewed.identity, "clock") }
    offset = Float(redis.call("HGET", skewed.identity, "clock"))
    assert_in_delta 400, offset, 2, "Redis' clock is 400 s ahead of the host's"
    process = Deckhand::API.new.processes.find(skewed.identity)
    assert process.clock_skewed?
    skewed.wait_for_log(/this host's clock is 4\d\d\.\ds behind Redis' clock/)
    plain = server(nil)
    wait_for(message: "the plain server's offset") { redis.call("HGET", plain.identity, "clock") }
    assert_in_delta 0, Float(redis.call("HGET", plain.identity, "clock")), 0.1
    refute_match(/this host's clock/, plain.output)
  end

  private

  # Two servers, one of them skewed by `skew`, run 6 jobs of 3 s each
  # (longer than HUNG_AFTER would allow a silent process): each runs once,
  # and no reaper recovers anything.
  def assert_no_live_process_loses_jobs(skew)
    plain = server(nil, "-c", "3")
    skewed = server(skew, "-c", "3")
    jids = Array.new(6) { push("E2E::StampJob", 3) }
    wait_for(message: "every job to start") { runs.size >= 6 }
    sleep HUNG_AFTER + 1 # past hung_after, by a wrong clock, while the jobs run
    wait_for(timeout: 15, message: "every job to finish") { redis.call("LLEN", "queue:clock").zero? && idle?(plain, skewed) }
    assert_equal jids.sort, runs.map(&:first).sort, "a job ran twice, or not at all"
    assert_equal [plain.pid, skewed.pid].sort, runs.map { |run| run[1] }.uniq.sort, "both servers ran jobs"
    [plain, skewed].each { |cli| refute_match(/recovered \d+ of its jobs/, cli.output) }
  end

  # The process record outlives the bound (heartbeat_ttl 20 s): the
  # survivor must find the dead server silent by its beats, which a server
  # ahead of Redis stamps in the future by its own clock.
  def assert_recovered_in_bound(skew)
    @config = config_file("heartbeat_interval: #{INTERVAL}\nheartbeat_ttl: 20\nhung_after: #{HUNG_AFTER}\n")
    skewed = server(skew, "-c", "1")
    jid = push("E2E::StampJob", 60)
    wait_for(message: "the job to start on the skewed server") { runs.size == 1 }
    server(nil, "-c", "1")
    sleep INTERVAL * 3 # the survivor's reaper is steady
    skewed.signal("KILL")
    skewed.wait_exit(timeout: 5)
    killed_at = redis_time
    wait_for(timeout: BOUND + 10, message: "the job to run again") { runs.size == 2 }
    assert_equal [jid, jid], runs.map(&:first)
    elapsed = runs.last[2] - killed_at
    assert_operator elapsed, :<=, BOUND, "the killed server's job came back #{elapsed.round(1)}s after the kill"
  end

  # A server (its host clock moved by `skew`, or not when nil) working "clock".
  def server(skew, *args)
    env = {"DECKHAND_REAPER_INTERVAL" => INTERVAL.to_s}
    env.merge!("LD_PRELOAD" => FAKETIME, "FAKETIME" => skew, "FAKETIME_DONT_FAKE_MONOTONIC" => "1") if skew
    cli = deckhand("-C", @config, "-q", "clock", *args, app: APP, env: env)
    cli.identity
    cli
  end

  # The jobs live in the servers' application (apps/clock_jobs.rb); this
  # process pushes them by name, as a web process of another codebase would.
  def push(klass, *args, at: nil)
    Deckhand::Client.push({"class" => klass, "args" => args, "queue" => "clock", "at" => at}.compact)
  end

  def redis_time
    seconds, micros = redis.call("TIME")
    Integer(seconds) + (Integer(micros) / 1_000_000.0)
  end

  def runs = redis.call("LRANGE", "e2e:clock:runs", 0, -1).map { |entry| JSON.parse(entry) }

  def idle?(*clis) = clis.all? { |cli| redis.call("HGET", cli.identity, "busy").to_i.zero? }

  def require_faketime
    return if File.exist?(FAKETIME)
    flunk "libfaketime is missing (#{FAKETIME}): bin/setup installs the faketime package"
  end
end
