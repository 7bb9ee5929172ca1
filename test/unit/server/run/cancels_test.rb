# frozen_string_literal: true

require "test_helper"

# The race between a cancel and a job's own end, settled under one lock: a
# job that left is never told nor interrupted; one told before it left is
# cancelled; an interrupt sent just as it left waits behind the thread's mask
# and is taken there (CancelWatch), never reaching the thread's next job.
class CancelsTest < Minitest::Test
  Cancels = Deckhand::Server::Run::Cancels
  MASKED = Deckhand::Server::Run::JobRunner::MASKED

  # Stands in for a job's instance: remembers being told.
  class Told
    attr_reader :seen

    def deckhand_cancel_seen!(at) = @seen = at
  end

  def setup = nil # no Redis needed

  def test_a_job_that_left_first_is_never_told_nor_interrupted
    cancels = Cancels.new
    entry = cancels.enter("a", Thread.current, interruptible: true)
    assert_nil cancels.leave(entry)
    assert_empty cancels.seen({"a" => 0}, now: 0, grace: 0)
    assert_empty cancels.overdue(now: 10)
    assert_empty cancels.jids
  end

  # A chunk's members, entered and left together: each told of its own
  # cancel, none ever interrupted (their thread runs the others).
  def test_a_chunks_members_enter_and_leave_together_each_with_its_own_outcome
    cancels = Cancels.new
    jids = [+"m1", +"m2", +"m3"]
    entries = cancels.enter_all(jids, Thread.current)
    assert_equal jids, cancels.jids
    assert_equal jids, entries.map { |entry| cancels.by_jid(entries).key(entry) }
    refute cancels.by_jid(entries).keys.any? { |jid| jids.any? { |own| own.equal?(jid) } }, "keyed by frozen copies, not the members' own Strings"
    assert_equal ["m2"], cancels.seen({"m2" => 5}, now: 100, grace: 10)
    assert cancels.told?(entries[1])
    refute cancels.told?(entries[0])
    assert_empty cancels.overdue(now: 1_000), "a member is never interrupted"
    assert_equal [nil, :cancelled, nil], cancels.leave_all(entries)
    assert_empty cancels.jids
    assert_empty cancels.seen({"m1" => 5}, now: 1_001, grace: 10), "a member that left is told nothing"
  end

  def test_a_job_told_before_it_left_is_cancelled_and_its_instance_knows
    cancels = Cancels.new
    entry = cancels.enter("a", Thread.current, interruptible: true)
    job = Told.new
    cancels.attach(entry, job)
    assert_equal ["a"], cancels.seen({"a" => nil, "elsewhere" => 1}, now: 100, grace: 10)
    assert_equal 110, job.seen, "told, with its deadline"
    assert_empty cancels.seen({"a" => nil}, now: 101, grace: 10), "told once"
    assert_empty cancels.overdue(now: 109.9), "within its grace"
    assert_equal :cancelled, cancels.leave(entry)
  end

  def test_an_instance_built_after_the_cancel_is_told_at_once
    cancels = Cancels.new
    entry = cancels.enter("a", Thread.current, interruptible: true)
    cancels.seen({"a" => 5}, now: 0, grace: 10)
    job = RecordJob.new
    refute job.cancelled?
    cancels.attach(entry, job)
    assert job.cancelled?
  end

  def test_only_jobs_with_a_jid_are_looked_up
    cancels = Cancels.new
    cancels.enter(nil, Thread.current, interruptible: true)
    cancels.enter("a", Thread.current, interruptible: true)
    assert_equal ["a"], cancels.jids
  end

  # Kept by identity, not by jid: a second run of one jid (a job handed
  # back and fetched again before the first ended) hides neither.
  def test_two_running_jobs_of_one_jid_are_both_told_and_each_leaves_alone
    cancels = Cancels.new
    first = cancels.enter(+"a", Thread.current, interruptible: true)
    second = cancels.enter(+"a", Thread.current, interruptible: true)
    assert_equal ["a"], cancels.jids
    assert_equal ["a"], cancels.seen({"a" => nil}, now: 0, grace: 1)
    assert_equal :cancelled, cancels.leave(first)
    assert_equal ["a"], cancels.jids, "the second still runs"
    assert_equal :cancelled, cancels.leave(second)
    assert_empty cancels.jids
  end

  def test_a_fiber_capsules_job_is_told_but_never_interrupted
    cancels = Cancels.new
    entry = cancels.enter("a", Thread.current, interruptible: false)
    cancels.seen({"a" => 0}, now: 0, grace: 0)
    assert_empty cancels.overdue(now: 1)
    assert_equal :cancelled, cancels.leave(entry)
  end

  def test_an_interrupt_sent_as_the_job_left_is_taken_before_the_next_job
    cancels = Cancels.new
    watch = Deckhand::Server::Run::CancelWatch.new(cancels: cancels, store: nil, fetcher: nil, gate: nil, logger: nil, interruptible: true)
    sent = Queue.new
    done = Queue.new
    worker = Thread.new do
      Thread.handle_interrupt(MASKED) do
        entry = watch.enter("a")
        sent.pop # perform has returned; the interrupt comes now, behind the mask
        first = watch.cancelled?(entry)
        second = watch.interruptible(nil) { sleep(0.2) && :ran } # the next job: nothing lands in it
        done << [first, second]
      end
    end
    wait_for(message: "the job entered") { cancels.jids == ["a"] }
    cancels.seen({"a" => 0}, now: 0, grace: 0)
    assert_equal ["a"], cancels.overdue(now: 1)
    sent << :go
    assert_equal [true, :ran], done.pop
    worker.join
  end
end
