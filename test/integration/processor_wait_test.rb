# frozen_string_literal: true

require "test_helper"
require "securerandom"

# An idle capsule's processors block in Redis themselves (two on a queue),
# each with its own BLMOVE into the process's landing list, and run the job
# the reply brings on the thread that read it: no idle waiter thread hands it
# over through the buffer. Quiet ends their waits with CLIENT UNBLOCK, so no
# wait moves a job into a quiet process's landing list.
class ProcessorWaitTest < Minitest::Test
  # Who read each BLMOVE reply that brought a job, and who ran each job.
  module Seen
    @lock = Mutex.new
    @moved = {}
    @ran = {}
    @pushed = 0

    class << self
      def reset = @lock.synchronize { @moved.clear || @ran.clear || @pushed = 0 }

      # Any payload at all (other tests' corrupt ones too): the jid, when
      # it has one, read without parsing.
      def moved(payload)
        jid = payload[/"jid":"([^"]+)"/, 1] or return
        @lock.synchronize { @moved[jid] = Thread.current }
      end

      def ran(jid) = @lock.synchronize { @ran[jid] = Thread.current }

      def pushed = @lock.synchronize { @pushed += 1 }

      def of(jid) = @lock.synchronize { [@moved[jid], @ran[jid], @pushed] }
    end

    # Store::Connection::Dedicated: the thread whose wait moved a job.
    module Moves
      def wait_move(...) = super.tap { |moved, _| Seen.moved(moved) if moved }
    end

    # Fetch::Buffer: jobs handed from one thread to another.
    module Pushes
      def push(unit) = super.tap { Seen.pushed }
    end
  end
  Deckhand::Store::Connection::Dedicated.prepend(Seen::Moves)
  Deckhand::Server::Fetch::Buffer.prepend(Seen::Pushes)

  class ThreadJob
    include Deckhand::Job

    def perform(n)
      Seen.ran(jid)
      Deckhand::TestJobs.record([jid, [n]])
    end
  end

  def setup
    super
    Seen.reset
  end

  # Blocked now (flag b) in a BLMOVE.
  def blocked_waits = redis.call("CLIENT", "LIST").lines.grep(/cmd=blmove/).count { |line| line[/\bflags=(\S+)/, 1].include?("b") }

  # Once warm, each job pushed to the idle server is moved and run by one
  # processor thread; before, an idle waiter thread read every reply and
  # handed the job through the buffer.
  def test_a_pushed_job_starts_on_the_processor_thread_that_read_the_reply
    Deckhand.config = new_config(concurrency: 5)
    with_server do
      settle_into_processor_waits
      5.times do |i|
        pushed = Seen.of(nil)[2]
        jid = ThreadJob.perform_async(100 + i)
        wait_for(message: "job #{i} to run") { Seen.of(jid)[1] }
        moved_by, ran_on, pushes = Seen.of(jid)
        assert_same moved_by, ran_on, "the thread that read the BLMOVE reply ran job #{i}"
        assert_match(/\Adeckhand-default-\d+\z/, ran_on.name, "a processor thread")
        assert_equal pushed, pushes, "no job went through the buffer to another thread"
        wait_for(message: "two processors waiting again") { blocked_waits == 2 }
      end
    end
    assert_equal 5 + @warmup.size, Deckhand::TestJobs.runs.size
  end

  # Pushes racing the quiet: each job runs once, or waits in its queue for
  # another process, and no wait is left blocked in Redis.
  def test_quiet_ends_every_processor_wait_and_strands_no_job
    Deckhand.config = new_config(concurrency: 5)
    pushed = []
    with_server do |launcher|
      settle_into_processor_waits
      pushing = Thread.new { Array.new(40) { |i| ThreadJob.perform_async(i).tap { sleep 0.0005 } } }
      sleep 0.005
      started = monotonic
      launcher.quiet
      assert_operator monotonic - started, :<, 1.5, "quiet ended the waits promptly, not at their 2 s timeout"
      pushed = pushing.value
      assert_equal 0, blocked_waits, "no wait left blocked in Redis"
    end
    ran = Deckhand::TestJobs.runs.map(&:first) - @warmup
    assert_equal ran.uniq, ran, "no job ran twice"
    left = jobs_in("default").map { |job| job["jid"] }
    assert_equal pushed.sort, (ran + left).sort, "every job pushed ran or waits in its queue"
    Deckhand::TestJobs.reset
    Deckhand.config = new_config(concurrency: 5)
    with_server { wait_for(message: "the rest to run") { Deckhand::TestJobs.runs.size == left.size } }
    assert_equal left.sort, Deckhand::TestJobs.runs.map(&:first).sort, "the rest ran once each"
  end

  private

  # The first jobs go through the idle waiter thread, until two processors
  # that ran them wait in Redis themselves: then each job is moved and run
  # by one of them in turn. The waiter thread, armed only while no
  # processor waited, waits out its timeout and steps aside.
  def settle_into_processor_waits
    @warmup = []
    direct = []
    20.times do
      jid = ThreadJob.perform_async(@warmup.size)
      @warmup << jid
      moved_by, ran_on = wait_for(message: "warm-up job #{@warmup.size}") { Seen.of(jid).then { |m, r, _| [m, r] if r } }
      direct << (moved_by.equal?(ran_on) ? ran_on : nil)
      sleep 0.02
      next unless direct.last(2).compact.uniq.size == 2
      sleep Deckhand::Server::Fetch::Idle::IdleWaiter::TIMEOUT + 0.5
      return assert_equal(2, blocked_waits, "two waits are left, both processors'")
    end
    flunk("after 20 jobs, no two processors ran the jobs their own waits moved")
  end
end
