# frozen_string_literal: true

require "test_helper"
require "deckhand/api"

# A job of a fiber capsule (fibers: true) sees its cancel (cancelled?) like
# any job, and stops; one that does not ask is never interrupted, since its
# fibers share the reactor's thread (docs/cancelling.md): it ends on its own
# and is recorded as cancelled all the same.
class CancelFibersTest < Minitest::Test
  class FiberCheckingJob
    include Deckhand::Job

    deckhand_options queue: "io"

    def perform = (sleep 0.01 until cancelled?)
  end

  class FiberDeafJob
    include Deckhand::Job

    deckhand_options queue: "io"

    def perform(seconds)
      sleep seconds
      Deckhand::TestJobs.record([:done, jid])
    end
  end

  def setup
    super
    skip_on_jruby("fiber capsules refuse to start there")
    Deckhand::TestJobs.reset
    Deckhand.config = new_config(concurrency: 1, heartbeat_interval: 0.1, cancel_grace: 0)
    Deckhand.config.capsule("io", concurrency: 5, queues: ["io"], fibers: true)
  end

  def api = Deckhand::API.new

  def test_a_fiber_job_sees_its_cancel_and_one_that_does_not_ask_is_left_to_end
    checking = FiberCheckingJob.perform_async
    deaf = FiberDeafJob.perform_async(1.5)
    with_server do
      wait_for(message: "both running") { (api.running.map { |r| r.job.jid } & [checking, deaf]).size == 2 }
      assert_equal :cancelling_running, Deckhand::Client.cancel(checking)
      assert_equal :cancelling_running, Deckhand::Client.cancel(deaf)
      wait_for(message: "both settled") { api.cancellation(checking) && api.cancellation(deaf) }
    end
    assert_equal [[:done, deaf]], Deckhand::TestJobs.runs, "never interrupted: it ran to its end"
    assert_equal [0, 0], [redis.call("ZCARD", "retry"), redis.call("LLEN", "queue:io")]
  end
end
