# frozen_string_literal: true

require_relative "../support/iterable/iterable_helper"
require "deckhand/api"

# Client.cancel reaches a running iterable job at its process's next
# heartbeat, not at its next save (every 5 s): it stops before its next step,
# runs on_stop and on_cancel, and ends cancelled, its progress forgotten.
class CancelIterableTest < Minitest::Test
  include IterableTestSetup

  def setup
    super
    IterableJobs.call("DEL", IterableJobs::LEDGER, IterableJobs::CALLBACKS)
  end

  def test_a_running_iterable_job_stops_before_its_next_step
    jid = IterableJobs::SlowStepJob.perform_async(1_000) # 20 s of steps
    api = Deckhand::API.new
    with_server(iterable_config) do
      wait_for(message: "some steps, reported by the heartbeat") { IterableJobs.ledger.size >= 3 && api.running.any? { |r| r.job.jid == jid } }
      cancelled_at = monotonic
      assert_equal :cancelling_running, Deckhand::Client.cancel(jid)
      wait_for(message: "on_cancel") { IterableJobs.callbacks.include?("cancel") }
      assert_operator monotonic - cancelled_at, :<, 4, "at a heartbeat (0.2 s here), not at the next save (5 s)"
      wait_for(message: "the cancellation recorded") { api.cancellation(jid) }
    end
    assert_equal %w[start stop cancel], IterableJobs.callbacks
    assert_operator IterableJobs.ledger.size, :<, 1_000
    assert_equal 0, redis.call("EXISTS", "it-#{jid}"), "its progress forgotten"
    assert_equal [0, 0, 0], [redis.call("ZCARD", "retry"), redis.call("ZCARD", "schedule"), redis.call("LLEN", "queue:default")]
  end
end
