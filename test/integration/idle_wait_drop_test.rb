# frozen_string_literal: true

require "test_helper"
require "securerandom"

# An idle waiter's BLMOVE moves a pushed job into the process's landing list
# and the reply brings it to a thread. When the connection drops right after
# Redis made the move (here: the push and a CLIENT KILL of the waiter's
# connection in one pipeline, so Redis serves the wait, then frees the client
# with the reply unsent), no thread knows the job: the waiter looks at its
# landing list once it reconnects and hands the job over. It runs once, at
# once, and nothing is handed back at the stop. Before, it waited in the
# landing list until the process stopped.
class IdleWaitDropTest < Minitest::Test
  # Blocked now (flag b), not only last seen in a BLMOVE: a wait that timed
  # out keeps cmd=blmove in the list until its connection's next command.
  def waiter_ids = redis.call("CLIENT", "LIST").lines.grep(/cmd=blmove/).select { |line| line[/\bflags=(\S+)/, 1].include?("b") }
    .map { |line| line[/\bid=(\d+)/, 1] }

  def payload(jid) = JSON.generate({"class" => "RecordJob", "args" => [1], "jid" => jid, "queue" => "default",
    "retry" => true, "created_at" => 1, "enqueued_at" => 1})

  def test_a_job_moved_as_the_waiters_connection_drops_runs_once_promptly
    Deckhand.config = new_config(concurrency: 1)
    drop_and_run(1)
  end

  # Two capsules with the same queue wait on the same landing list: each
  # must tell the job its own wait lost from the other's.
  def test_two_waiters_of_one_landing_list_run_the_job_once
    config = new_config(concurrency: 1)
    config.capsule("more", concurrency: 1, queues: ["default"])
    Deckhand.config = config
    drop_and_run(2)
  end

  # A client that reconnects and sends the BLMOVE again by itself (drop-in
  # mode's Sidekiq pools set reconnect_attempts) hides the drop: the
  # waiter's connection counts its connects.
  def test_a_client_that_sends_the_wait_again_by_itself_hides_nothing
    config = Deckhand::Config.new(redis: {url: Deckhand::RedisHarness.url, reconnect_attempts: 1}, concurrency: 1)
    Deckhand.config = config
    drop_and_run(1)
  end

  private

  def drop_and_run(waiters)
    jid = SecureRandom.hex(12)
    log = StringIO.new
    Deckhand.config.logger = Logger.new(log)
    with_server do |launcher|
      landing = "deckhand:landing:#{launcher.identity}:default"
      ids = wait_for(message: "the idle waiters blocked in Redis") { waiter_ids.then { |found| found if found.size == waiters } }
      *killed, queued, landed = redis.pipelined do |pipe|
        pipe.call("LPUSH", "queue:default", payload(jid))
        ids.each { |id| pipe.call("CLIENT", "KILL", "ID", id) } # whichever was served
        pipe.call("LLEN", "queue:default")
        pipe.call("LLEN", landing)
      end.drop(1)
      assert_equal [[1] * waiters, 0, 1], [killed, queued, landed], "the move was made and the waiters' connections killed"
      started = monotonic
      wait_for(timeout: 20, message: "the job to run") { Deckhand::TestJobs.runs.any? }
      assert_operator monotonic - started, :<, 10, "the job ran promptly, not at the stop"
      wait_for(message: "the landing list emptied") { redis.call("LLEN", landing).zero? }
      assert_match(/1 job\(s\) moved into the landing list of queue default while the idle wait's connection dropped/, log.string)
      # A job pushed now still runs at once: the waiters wait again.
      RecordJob.perform_async(2)
      wait_for(message: "a later push to run") { Deckhand::TestJobs.runs.size == 2 }
    end
    assert_equal [[jid, [1]]], Deckhand::TestJobs.runs.select { |j, _| j == jid }, "the job ran once"
    assert_equal 0, redis.call("LLEN", "queue:default"), "nothing handed back at the stop"
  end
end
