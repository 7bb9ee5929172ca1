# frozen_string_literal: true

require_relative "e2e_helper"

# `deckhand cancel JID` against a real server process: a scheduled job is
# removed, a running job that never checks cancelled? is interrupted after the
# grace period and settled once (a stop afterwards hands nothing back), an
# unknown jid exits 1.
class CancelE2ETest < Minitest::Test
  include Deckhand::E2EHelpers

  FAST = "heartbeat_interval: 0.2\n"

  def cancel(*args) = deckhand_run("cancel", *args, timeout: 30)

  def test_the_cli_cancels_a_scheduled_job_and_a_running_one
    later = E2E::SlowJob.perform_in(3600, 1)
    done = cancel(later)
    assert_equal 0, done.wait_exit.exitstatus, done.output
    assert_equal "#{later} removed_from_schedule\n", done.stdout
    assert_equal 0, redis.call("ZCARD", "schedule")

    server = boot("-q", "slow", "-C", config_file(FAST))
    jid = E2E::SlowJob.perform_async(600)
    wait_for(message: "the job started", timeout: 30) { started == [jid] }
    wait_for(message: "the heartbeat reports it", timeout: 30) { redis.call("HLEN", "#{server.identity}:work") == 1 }
    done = cancel("--grace", "0.5", jid)
    assert_equal "#{jid} cancelling_running\n", done.stdout, done.output
    wait_for(message: "the cancellation recorded", timeout: 30) { redis.call("GET", "deckhand:cancelled:#{jid}") }
    assert_equal "running", JSON.parse(redis.call("GET", "deckhand:cancelled:#{jid}"))["where"]
    wait_for(message: "its thread free", timeout: 30) { redis.call("HLEN", "#{server.identity}:work").zero? }
    server.signal("TERM")
    assert_equal 0, server.wait_exit(timeout: 20).exitstatus
    assert_empty finished, "interrupted, never finished"
    assert_equal [0, 0, 0], [redis.call("LLEN", "queue:slow"), redis.call("ZCARD", "retry"), redis.call("ZCARD", "dead")],
      "settled as cancelled: not handed back, not retried"
    assert_match(/did not stop within the grace period of its cancel/, server.output)

    missing = cancel("0" * 24)
    assert_equal 1, missing.wait_exit.exitstatus
    assert_equal "#{"0" * 24} not_found\n", missing.stdout
  end
end
