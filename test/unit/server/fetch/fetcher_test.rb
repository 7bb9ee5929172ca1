# frozen_string_literal: true

require "test_helper"

# The fetcher's decision of what the next round trip carries, without running
# its thread.
class FetcherRoundsTest < Minitest::Test
  def fetcher
    capsule = Deckhand::Config::Capsule.new("default", concurrency: 1, queues: ["default"])
    store = Deckhand.config.store
    Deckhand::Server::Fetch::Fetcher.new(capsule, store: store, identity: "t", sequence: Deckhand::Server::Fetch::Sequence.new,
      suspects: Deckhand::Server::Recovery::Suspects.new("t", store: store, logger: Deckhand.config.logger, max_recoveries: 3),
      logger: Deckhand.config.logger, prefetch: 0)
  end

  def test_an_idle_fetcher_looks_again_by_itself
    f = fetcher
    f.instance_variable_get(:@planner).arm(monotonic - Deckhand::Server::Fetch::Planner::IDLE_POLL)
    _batch, want = f.send(:next_round)
    assert_operator want, :>, 0, "with no waiter waking it, the fetcher must poll within IDLE_POLL"
  end

  def test_a_landed_job_goes_to_a_thread_at_once_and_its_settlement_rides_the_next_round
    f = fetcher
    f.instance_variable_get(:@planner).arm(monotonic)
    f.landed(0, "raw", nil)
    unit = f.take
    assert_equal ["raw", [:landing, "raw"]], [unit.payload, unit.place]
    f.done(unit)
    due, want = f.send(:next_round)
    assert_equal [[], [[0, "raw"]]], [due.acks, due.landed]
    assert_operator want, :>, 0, "a landed job means the queue may hold more: look"
  end

  # A Mutex that counts how often it is taken, and a ConditionVariable how
  # often it wakes a waiter: the planner's own, swapped in.
  class CountedLock < Mutex
    attr_reader :taken

    def initialize
      super
      @taken = 0
    end

    def synchronize(&)
      @taken += 1
      super
    end
  end

  class CountedWake < ConditionVariable
    attr_reader :signals

    def initialize
      super
      @signals = 0
    end

    def signal
      @signals += 1
      super
    end
  end

  def outcomes(fetcher)
    config = Deckhand.config
    stats = Deckhand::Server::Chores::Activity.new
    Deckhand::Server::Run::Outcomes.new(config: config, fetcher: fetcher, stats: stats,
      gate: Deckhand::Server::Run::JobGate.new(config: config, store: config.store, fetcher: fetcher, stats: stats),
      retries: Deckhand::Server::Run::RetryHandler.new(config: config, store: config.store, identity: "t"),
      classes: Deckhand::Server::ClassLookup.new(cache: true))
  end

  # A chunk of 1,000 that succeeded takes the planner's lock once and wakes
  # the fetch loop once, not once a member; each member is still settled
  # on its own, and the next round trip acknowledges every one of them and
  # releases the lock one of them held.
  def test_a_chunks_successes_take_the_planners_lock_and_wake_the_loop_once
    f = fetcher
    planner = f.instance_variable_get(:@planner)
    planner.arm(monotonic) # an idle capsule: the loop, not this thread, makes the round trip
    planner.delivered(1_000)
    lock = planner.instance_variable_set(:@lock, CountedLock.new)
    wake = planner.instance_variable_set(:@wake, CountedWake.new)
    lot = Deckhand::Server::Fetch::Lot.new("default", 0, 7, 1_000)
    members = Array.new(1_000) do |i|
      [Deckhand::Server::Fetch::UnitOfWork.new(lot, i, "{}", false), {"class" => "ChunkedJob", "jid" => "jid#{i}", "args" => [i]}]
    end
    members[5][1].merge!("unique_for" => 60, "unique_key" => "unique:member-5")
    outcomes(f).successes(members, 1.5)
    assert_equal [1, 1], [lock.taken, wake.signals], "one lock and one wake for the chunk"
    assert members.all? { |unit, _| unit.settled? }, "every member settled"
    assert_equal 0, f.outstanding
    due, = f.send(:next_round)
    assert_equal [[0, 7, "", []]], due.acks, "the lot acknowledged whole: every member's success"
    assert_equal [["unique:member-5", "jid5", 60_000, 0]], due.unlocks, "the member's unique lock goes with it"
  end
end
