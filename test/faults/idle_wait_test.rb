# frozen_string_literal: true

require "test_helper"

# An idle waiter's BLMOVE and the read of its queue's recovery counts go in
# one round trip. When the read fails after the move happened (the counts
# hash is the wrong type, Redis refuses), the job is in the landing list:
# it must still reach a thread once Redis answers, not wait there for the
# process to stop.
class IdleWaitFaultTest < Minitest::Test
  def test_a_job_moved_by_an_idle_waiter_runs_once_its_recovery_counts_can_be_read
    Deckhand.config = new_config(concurrency: 1)
    with_server do |launcher|
      wait_for(message: "an idle waiter blocked in Redis") { redis.call("CLIENT", "LIST").include?("cmd=blmove") }
      redis.call("SET", "deckhand:recoveries:default", "not a hash")
      jid = RecordJob.perform_async(1)
      landing = "deckhand:landing:#{launcher.identity}:default"
      wait_for(message: "the job moved into the landing list") { redis.call("LLEN", landing) == 1 }
      assert_empty Deckhand::TestJobs.runs, "it cannot start before its recovery count is known"

      redis.call("DEL", "deckhand:recoveries:default")
      wait_for(timeout: 10, message: "the landed job to run") { Deckhand::TestJobs.runs.map(&:first) == [jid] }
      wait_for(message: "the landing list emptied") { redis.call("LLEN", landing).zero? }
    end
  end
end
