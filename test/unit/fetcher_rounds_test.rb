# frozen_string_literal: true

require "test_helper"

# The fetcher's decision of what the next round trip carries, without running
# its thread: a job an idle waiter landed must wait for a round that fetches,
# never be dropped by one that only sends acknowledgements.
class FetcherRoundsTest < Minitest::Test
  def fetcher
    capsule = Deckhand::Config::Capsule.new("default", concurrency: 1, queues: ["default"])
    store = Deckhand.config.store
    Deckhand::Server::Fetcher.new(capsule, store: store, identity: "t", sequence: Deckhand::Server::Sequence.new,
      suspects: Deckhand::Server::Suspects.new("t", store: store, logger: Deckhand.config.logger, max_recoveries: 3),
      logger: Deckhand.config.logger, prefetch: 0)
  end

  def settled_lot
    lot = Deckhand::Server::Lot.new("default", 0, 1, 1)
    lot.settle(0)
    lot
  end

  def test_a_landing_survives_an_acknowledgement_only_round
    f = fetcher
    lot = settled_lot
    f.instance_variable_set(:@armed, true)      # queues found empty: waiters armed
    f.instance_variable_get(:@armed_at).then { f.instance_variable_set(:@armed_at, monotonic) }
    f.instance_variable_set(:@outstanding, 2)   # threads and prefetch full: no room to fetch
    f.instance_variable_set(:@reports, {lot => true}.compare_by_identity)
    f.landed(0)

    assert_equal [[lot], 0, []], f.send(:next_round)

    f.instance_variable_set(:@outstanding, 0) # room again
    lots, want, landed = f.send(:next_round)
    assert_equal [[], [0]], [lots, landed]
    assert_operator want, :>, 0
  end

  def test_an_idle_fetcher_looks_again_by_itself
    f = fetcher
    f.instance_variable_set(:@armed, true)
    f.instance_variable_set(:@armed_at, monotonic - Deckhand::Server::Fetcher::IDLE_POLL)
    _lots, want, landed = f.send(:next_round)
    assert_operator want, :>, 0, "with no waiter waking it, the fetcher must poll within IDLE_POLL"
    assert_empty landed
  end
end
