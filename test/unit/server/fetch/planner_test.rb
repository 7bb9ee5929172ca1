# frozen_string_literal: true

require "test_helper"

# Who makes a capsule's next round trip and what it carries, on a clock the
# test moves, without Redis: news waits at most half the fetch window, then
# the processor that settled a job sends it, and when a fetch is due by then
# (the loop's thread may not get Ruby's global lock before the buffer runs
# dry) that round trip fetches too, instead of the news going alone and the
# fetch after it.
class FetchPlannerTest < Minitest::Test
  Fetch = Deckhand::Server::Fetch
  Unit = Deckhand::Server::Fetch::UnitOfWork

  def setup = nil # no Redis needed

  # Monotonic time is the test's: Planner and Pace read it through #now.
  module Clock
    attr_accessor :clock

    private

    def now = @clock
  end

  class ClockPlanner < Fetch::Planner
    include Clock
  end

  class ClockPace < Deckhand::Server::Fetch::Pace
    include Clock

    def initialize(**)
      @clock = 0.0
      super
    end
  end

  # A capsule of 10 threads with `buffered` fetched jobs waiting to start
  # and 10 running, at `rate` jobs a second for the last 100 ms.
  def busy(buffered:, rate: 50_000, window: 0.01)
    @pace = ClockPace.new(concurrency: 10, prefetch: 0.0, window: window)
    (rate / 10).times { @pace.completed }
    @pace.clock = 0.1
    @ready = Fetch::Buffer.new(nil, logger: nil)
    @lot = Deckhand::Server::Fetch::Lot.new("default", 0, 1, buffered + 100)
    @ready.push_lots([Deckhand::Server::Fetch::Lot.new("default", 0, 2, buffered).hold(Array.new(buffered, "{}"))]) if buffered.positive?
    ledger = Fetch::Ledger.new(queues: 1, lag: window / 2)
    @planner = ClockPlanner.new(concurrency: 10, ledger: ledger, slots: Fetch::ThrottleSlots.new(nil, ["default"]),
      pace: @pace, ready: @ready, lost: Deckhand::Server::Fetch::LostFetches.new(nil))
    @planner.clock = 0.1
    @planner.delivered(buffered + 10)
    @settled = 0
  end

  # A running job settles at `at`; returns what the planner asks of the
  # processor that settled it.
  def settle(at)
    @planner.clock = @pace.clock = at
    @settled += 1
    @planner.settled(Unit.new(@lot, @settled, "job", false), marked: false, unlock: nil)
  end

  def take(count) = count.times { @ready.pop }

  def test_late_news_takes_the_fetch_that_is_due_along
    busy(buffered: 400) # at 50,000 jobs/s, 10 ms of work: 500 jobs may wait; a fetch at 250
    assert_nil settle(0.1)
    take(200) # down to 200 waiting: a fetch is due, the loop is told, but has not made it (the global lock)
    assert_nil settle(0.104), "the news is not half a window old yet"
    due, want = settle(0.1051)
    assert_operator want, :>, 0, "the processor that sends the late news fetches too"
    assert_equal [[0, 1, @lot.report[2], []]], due.acks
    assert @planner.in_flight?
    assert_nil settle(0.1102), "one round trip at a time"
    @planner.sent(due, ok: true)
    refute @planner.in_flight?
  end

  def test_late_news_goes_alone_while_no_fetch_is_due
    busy(buffered: 400)
    assert_nil settle(0.1)
    due, want = settle(0.1051)
    assert_equal [0, 1], [want, due.acks.size], "400 jobs still wait: no fetch yet, the news goes alone"
  end

  def test_after_a_processor_round_trip_failed_the_loop_makes_them_until_one_gets_through
    busy(buffered: 100)
    assert_nil settle(0.1)
    due, want = settle(0.106)
    assert_operator want, :>, 0
    @planner.restore(due, nil)
    @planner.failed
    @planner.sent(due)
    assert_nil settle(0.2), "the loop retries, pausing as the outage calls for"
    again, = @planner.next_round { false }
    assert_equal 3, again.acks.first[2].unpack1("b*").count("1"), "the loop's round carries every job's news"
    @planner.sent(again, ok: true)
    assert_nil settle(0.3)
    _, want = settle(0.306)
    assert_operator want, :>, 0, "Redis answered: processors make them again"
  end

  def test_an_idle_capsule_leaves_its_round_trips_to_the_loop
    busy(buffered: 0)
    @planner.arm(0.1)
    assert_nil settle(0.1001), "the waiters watch the queues; the loop sends the news at once"
    due, want = @planner.next_round { false }
    assert_equal [0, 1], [want, due.acks.size]
  end

  def test_a_chunks_late_news_goes_in_one_round_trip_with_every_member
    busy(buffered: 400)
    assert_nil settle(0.1)
    @planner.clock = @pace.clock = 0.1051
    members = Array.new(400) { |i| Unit.new(@lot, i + 2, "job", false) }
    due, want = @planner.settled_all(members, Array.new(400))
    assert_equal 0, want, "400 jobs still wait: no fetch yet"
    assert_equal 401, due.acks.first[2].unpack1("b*").count("1"), "the first job's news and each member's"
    assert_equal 9, @planner.outstanding
    assert_nil @planner.settled_all(members, Array.new(400)), "settled once: no news, no round trip"
    assert_equal 9, @planner.outstanding
  end
end
