# frozen_string_literal: true

require_relative "e2e_helper"

# Real signals sent to the real CLI: stop, quiet, thread dump, and a crash.
class SignalsTest < Minitest::Test
  include Deckhand::E2EHelpers

  # A backtrace frame in Deckhand's server code, as the TTIN dump logs it.
  SERVER_FRAME = %r{WARN: +#{Regexp.escape(Deckhand::CliProcess::ROOT)}/lib/deckhand/server/\w+\.rb:\d+:in }

  def test_term_hands_the_running_job_back_and_exits_within_the_timeout
    assert_stop_hands_back("TERM", timeout: 2)
  end

  def test_int_stops_like_term
    assert_stop_hands_back("INT", timeout: 1)
  end

  def test_tstp_finishes_the_running_job_and_takes_no_more
    cli = boot("-C", config_file("heartbeat_interval: 0.2\n"), "-c", "2", "-q", "slow", "-q", "default")
    slow = E2E::SlowJob.perform_async(1.5)
    wait_for(message: "the slow job to start") { started.include?(slow) }
    assert_equal "false", redis.call("HGET", cli.identity, "quiet")
    cli.signal("TSTP")
    wait_for(message: "quiet in the process record") { redis.call("HGET", cli.identity, "quiet") == "true" }
    later = E2E::CountJob.perform_async(1)
    wait_for(message: "the running job to finish") { finished.include?(slow) }
    # The idle thread had the rest of the slow job's run to take the later job.
    assert_equal [later], jobs_in("default").map { |job| job["jid"] }
    cli.signal("TERM")
    assert_equal 0, cli.wait_exit(timeout: 10).exitstatus
    assert_equal [later], jobs_in("default").map { |job| job["jid"] }
    assert_empty jobs_in("slow"), "a finished job was handed back"
    assert_empty counts
  end

  def test_ttin_logs_every_threads_backtrace_and_keeps_working
    cli = boot("-c", "2")
    cli.signal("TTIN")
    cli.wait_for_log(/WARN: thread deckhand-heartbeat: sleep/)
    cli.wait_for_log(/WARN: thread deckhand-default-1: sleep/)
    cli.wait_for_log(SERVER_FRAME)
    E2E::CountJob.perform_async(1)
    wait_for(message: "a job after the dump") { counts == {1 => 1} }
    assert cli.alive?
  end

  def test_sigkill_leaves_the_running_job_in_the_in_flight_record
    cli = boot("-c", "1", "-q", "slow")
    jid = E2E::SlowJob.perform_async(30)
    wait_for(message: "the slow job to start") { started.include?(jid) }
    identity = cli.identity
    cli.signal("KILL")
    assert_equal "KILL", Signal.signame(cli.wait_exit(timeout: 5).termsig)
    payloads = inflight_payloads(identity, ["slow"]).map { |raw| JSON.parse(raw) }
    assert_equal [jid], payloads.map { |job| job["jid"] }
    assert_equal "E2E::SlowJob", payloads.first["class"]
    assert_empty jobs_in("slow")
    assert redis.call("HEXISTS", "deckhand:owners", identity) == 1, "the owner record that leads recovery to the job is gone"
  end

  private

  # A 30 s job is running and one more waits in the process' buffer (prefetch
  # holds one job ahead per thread) when the signal comes: both go back, the
  # running one at the very front.
  def assert_stop_hands_back(signal, timeout:)
    cli = boot("-t", timeout.to_s, "-c", "1", "-q", "slow", "-C", config_file("prefetch: 1.0\n"))
    identity = cli.identity
    long = E2E::SlowJob.perform_async(30)
    wait_for(message: "the long job to start") { started.include?(long) }
    behind = E2E::SlowJob.perform_async(0)
    wait_for(message: "the second job to be fetched") { inflight_count(identity, ["slow"]) == 2 }
    assert_equal 1, redis.call("SISMEMBER", "processes", identity)
    assert_equal 1, redis.call("HEXISTS", "deckhand:owners", identity)

    cli.signal(signal)
    assert_equal 0, cli.wait_exit(timeout: timeout + 5).exitstatus
    assert_equal [behind, long], jobs_in("slow").map { |job| job["jid"] }
    assert_equal long, JSON.parse(redis.call("LINDEX", "queue:slow", -1))["jid"]
    assert_equal [long], started, "the job behind ran during shutdown"
    assert_empty finished
    assert_empty inflight_keys(identity)
    assert_empty redis.call("KEYS", "deckhand:landing:*")
    assert_equal 0, redis.call("HEXISTS", "deckhand:owners", identity)
    assert_equal 0, redis.call("SISMEMBER", "processes", identity)
    assert_equal 0, redis.call("EXISTS", identity)
    assert_includes cli.stdout, "received #{signal}: stopping"
  end
end
