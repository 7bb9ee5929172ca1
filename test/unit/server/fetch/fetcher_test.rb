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
end
