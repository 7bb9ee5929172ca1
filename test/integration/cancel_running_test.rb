# frozen_string_literal: true

require "test_helper"
require "deckhand/api"
require "deckhand/batch"

# Client.cancel reaches a running job through its process's heartbeat: the
# job sees cancelled? and stops, or is interrupted with Deckhand::Cancelled
# once its grace period is over; either way its one outcome is "cancelled":
# never retried, nothing left in flight, the thread goes on to the next job.
class CancelRunningTest < Minitest::Test
  # Works in small steps, asking between them.
  class CheckingJob
    include Deckhand::Job

    def perform
      Deckhand::TestJobs.record([:started, jid])
      sleep 0.01 until cancelled?
      Deckhand::TestJobs.record([:stopped, jid])
    end
  end

  # Never asks: only the interrupt stops it.
  class StuckJob
    include Deckhand::Job

    deckhand_options retry: 5

    def perform
      Deckhand::TestJobs.record([:started, jid])
      loop { sleep 0.05 }
    ensure
      Deckhand::TestJobs.record([:ensure, jid])
    end
  end

  # A chunk of three: it waits until its second member is cancelled, and
  # fails its third; records what chunk.cancelled? said of each.
  class ChunkedJob
    include Deckhand::Job

    deckhand_options chunk: {size: 3, wait: 2}, retry: 5

    def perform_chunk(chunk)
      Deckhand::TestJobs.record([:chunk, chunk.size])
      second = chunk.jobs[1]
      sleep 0.01 until chunk.cancelled?(second)
      chunk.each { |(n), job| chunk.fail(job, ArgumentError.new("member #{n} failed")) if n >= 2 }
      Deckhand::TestJobs.record([:saw, chunk.jobs.map { |job| chunk.cancelled?(job) }])
    end
  end

  def setup
    super
    Deckhand::TestJobs.reset
    @log = StringIO.new
    Deckhand.config = new_config(concurrency: 1, heartbeat_interval: 0.1, cancel_grace: 30)
    Deckhand.config.logger = Logger.new(@log)
  end

  def api = Deckhand::API.new

  def runs(what) = Deckhand::TestJobs.runs.select { |event, _| event == what }.map(&:last)

  def wait_running(jid)
    wait_for(message: "#{jid} running and reported by the heartbeat") { api.running.any? { |r| r.job.jid == jid } }
  end

  def assert_cancelled_once(jid, launcher)
    wait_for(message: "the cancellation recorded") { api.cancellation(jid) }
    assert_equal ["running", "default"], [api.cancellation(jid).where, api.cancellation(jid).queue]
    wait_for(message: "nothing left in flight") { inflight_keys(launcher.identity).empty? }
    assert_equal 0, redis.call("ZCARD", "retry"), "never retried"
    assert_equal 0, redis.call("ZCARD", "dead")
    assert_equal 0, redis.call("LLEN", "queue:default")
    RecordJob.perform_async("next")
    wait_for(message: "the thread runs the next job") { Deckhand::TestJobs.runs.any? { |_, args| args == ["next"] } }
    assert_equal [jid], runs(:started), "it ran once"
  end

  def test_a_job_that_checks_cancelled_stops_at_the_next_heartbeat
    with_server do |launcher|
      jid = CheckingJob.perform_async
      wait_running(jid)
      started = monotonic
      assert_equal :cancelling_running, Deckhand::Client.cancel(jid)
      wait_for(message: "the job saw cancelled?") { runs(:stopped) == [jid] }
      assert_operator monotonic - started, :<, 5, "within a few heartbeats (0.1 s here), not at the grace period (30 s)"
      assert_cancelled_once(jid, launcher)
    end
    assert_match(/job \w+ was cancelled: it stops by itself, or is interrupted after 30s/, @log.string)
    refute_match(/interrupting it/, @log.string)
  end

  # Sees each member's own outcome, before the cancel decides the second's.
  class MemberOutcomes
    def call(_instance, payload, _queue)
      yield
      Deckhand::TestJobs.record([:middleware, [payload["args"].first, :returned]])
    rescue => e
      Deckhand::TestJobs.record([:middleware, [payload["args"].first, e.class]])
      raise
    end
  end

  def test_a_chunk_member_cancelled_while_its_chunk_runs_ends_cancelled_and_the_others_their_own_way
    cancel_a_chunk_member
    assert_empty runs(:middleware)
  end

  def test_a_cancelled_chunk_member_passes_through_its_middleware_with_its_own_outcome
    Deckhand.config.server_middleware.add(MemberOutcomes)
    cancel_a_chunk_member
    assert_equal [[1, :returned], [2, ArgumentError], [3, ArgumentError]], runs(:middleware).sort_by(&:first)
  end

  def cancel_a_chunk_member
    jids = ChunkedJob.perform_bulk([[1], [2], [3]])
    with_server do
      wait_for(message: "the chunk of three") { runs(:chunk) == [3] }
      wait_running(jids[0])
      assert_equal :cancelling_running, Deckhand::Client.cancel(jids[1]), "a member the chunk's record lists"
      wait_for(message: "the chunk to end") { runs(:saw).any? }
      wait_for(message: "the outcomes written") { redis.call("ZCARD", "retry") == 1 && api.cancellation(jids[1]) }
    end
    assert_equal [[false, true, false]], runs(:saw), "only the cancelled member answers cancelled?"
    assert_equal "running", api.cancellation(jids[1]).where
    assert_equal [jids[2]], redis.call("ZRANGE", "retry", 0, -1).map { |raw| JSON.parse(raw)["jid"] },
      "the failed member retries; the cancelled one, failed too, does not"
    assert_equal 0, redis.call("ZCARD", "dead")
    assert_includes @log.string, "jid=#{jids[1]} cancelled"
  end

  def test_a_job_that_never_checks_is_interrupted_after_its_grace_period
    with_server do |launcher|
      jid = StuckJob.perform_async
      wait_running(jid)
      assert_equal :cancelling_running, Deckhand::Client.cancel(jid, grace: 0.5)
      sleep 0.3
      assert_empty runs(:ensure), "still inside its grace period"
      wait_for(message: "the interrupt ran its ensure block") { runs(:ensure) == [jid] }
      assert_cancelled_once(jid, launcher)
    end
    assert_match(/did not stop within the grace period of its cancel: interrupting it/, @log.string)
  end

  # A stop within the grace period: the shutdown interrupt ends the job,
  # which ends cancelled, not handed back to run again after the deploy.
  def test_a_cancelled_job_interrupted_by_a_stop_is_not_handed_back
    Deckhand.config = new_config(concurrency: 1, heartbeat_interval: 0.1, cancel_grace: 30, timeout: 0.5)
    Deckhand.config.logger = Logger.new(@log)
    jid = StuckJob.perform_async
    with_server do
      wait_running(jid)
      assert_equal :cancelling_running, Deckhand::Client.cancel(jid)
      wait_for(message: "the job told") { @log.string.include?("job #{jid} was cancelled") }
    end
    assert_equal [jid], runs(:ensure)
    assert_equal "running", api.cancellation(jid).where
    assert_equal [0, 0, 0], [redis.call("LLEN", "queue:default"), redis.call("ZCARD", "retry"), redis.call("ZCARD", "schedule")],
      "not handed back, not retried"
    refute_match(/handed \d+ unfinished jobs back/, @log.string)
  end

  # Its process died before the cancelled job's outcome reached Redis: the
  # reaper hands it back, counted as recovered, and the next process finds
  # its mark before it starts it again.
  def test_a_cancelled_job_recovered_from_a_dead_process_never_starts_again
    jid = "c" * 24
    Deckhand::Store::Jobs::Cancellations.mark(Deckhand.config.store, jid, grace: nil, at: Time.now.to_f)
    redis.call("HSET", "deckhand:recoveries:default", jid, 1, "~v", 7)
    redis.call("LPUSH", "queue:default", JSON.generate("class" => "#{self.class}::CheckingJob", "args" => [], "jid" => jid, "queue" => "default"))
    with_server do |launcher|
      wait_for(message: "the cancellation recorded") { api.cancellation(jid) }
      wait_for(message: "nothing left in flight") { inflight_keys(launcher.identity).empty? }
    end
    assert_empty runs(:started), "never started again"
    assert_equal [0, 0], [redis.call("LLEN", "queue:default"), redis.call("ZCARD", "retry")]
  end

  # Batches have no cancelled count (docs/cancelling.md): a job that
  # returns after cancelled? is a success, one interrupted a failure never
  # retried, a waiting one taken out is never counted, so the batch stays
  # pending: not complete, not a success.
  def test_what_a_batch_counts_of_its_cancelled_jobs
    Deckhand::Batch.install(Deckhand.config)
    batch = Deckhand::Batch.new
    checking = stuck = waiting = nil
    batch.jobs do
      checking = CheckingJob.perform_async
      stuck = StuckJob.perform_async
      waiting = RecordJob.perform_in(3600, "waiting")
    end
    Deckhand.config.concurrency = 2
    with_server do
      [checking, stuck].each { |jid| wait_running(jid) }
      assert_equal :cancelling_running, Deckhand::Client.cancel(checking)
      assert_equal :cancelling_running, Deckhand::Client.cancel(stuck, grace: 0)
      assert_equal :removed_from_schedule, Deckhand::Client.cancel(waiting)
      wait_for(message: "both settled") { api.cancellation(checking) && api.cancellation(stuck) && api.running.empty? }
    end
    status = Deckhand::Batch::Status.new(batch.bid)
    assert_equal [3, 2, 1], [status.total, status.pending, status.failures], "one success, one failure, one never counted"
    assert_equal [stuck], status.failed_jids
    refute status.complete?
    refute status.success?
    assert_equal 0, redis.call("ZCARD", "retry")
  end

  # Jobs ending on their own just as their process sees their cancel (the
  # marks are set before they start; beats every 50 ms, jobs of 0 to 180 ms,
  # no grace): some end first, some are told, some interrupted. Each has one
  # outcome, written once: no failure, no retry, no death, one record at
  # most, and no cancel interrupt lands in the job its thread runs next
  # (that job would fail).
  def test_a_cancel_racing_the_jobs_own_end_records_one_outcome
    Deckhand.config = new_config(concurrency: 4, heartbeat_interval: 0.05, cancel_grace: 0)
    Deckhand.config.logger = Logger.new(@log)
    store = Deckhand.config.store
    jids = Array.new(60) { |i| "race#{i.to_s.rjust(20, "0")}" }
    jids.each { |jid| Deckhand::Store::Jobs::Cancellations.mark(store, jid, grace: 0, at: Time.now.to_f) }
    with_server do |launcher|
      jids.each_with_index { |jid, i| Deckhand::Client.push("class" => "SleepJob", "args" => [0.03 * (i % 7)], "jid" => jid) }
      wait_for(message: "every job settled") do
        redis.call("GET", "stat:processed").to_i == jids.size && inflight_keys(launcher.identity).empty?
      end
    end
    assert_equal 0, redis.call("GET", "stat:failed").to_i, "no job failed: no interrupt reached a job not cancelled"
    assert_equal 0, redis.call("ZCARD", "retry") + redis.call("ZCARD", "dead") + redis.call("LLEN", "queue:default")
    logged = @log.string.scan(/jid=(race\d+) cancelled$/).flatten
    recorded = jids.select { |jid| api.cancellation(jid) }
    assert_equal logged.uniq.size, logged.size, "each cancellation recorded once"
    assert_equal recorded.sort, logged.sort
    refute_empty recorded, "the longer jobs were cancelled"
    assert_operator recorded.size, :<, jids.size, "the shortest ended first"
  end
end
