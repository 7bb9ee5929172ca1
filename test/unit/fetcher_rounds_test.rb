# frozen_string_literal: true

require "test_helper"

# The fetcher's decision of what the next round trip carries, without running
# its thread: a job an idle waiter landed must wait for a round that fetches,
# never be dropped by one that only sends acknowledgements.
class FetcherRoundsTest < Minitest::Test
  def fetcher
    capsule = Deckhand::Config::Capsule.new("default", concurrency: 1, queues: ["default"])
    Deckhand::Server::Fetcher.new(capsule, store: Deckhand.config.store, inflight: "deckhand:inflight:t",
      identity: "t", sequence: Deckhand::Server::Sequence.new, logger: Deckhand.config.logger, prefetch: 0)
  end

  def test_a_landing_survives_an_acknowledgement_only_round
    f = fetcher
    f.instance_variable_set(:@armed, true)      # queues found empty: waiters armed
    f.instance_variable_set(:@outstanding, 2)   # threads and prefetch full: no room to fetch
    f.instance_variable_set(:@acks, ["1:default"])
    f.landed("default")

    assert_equal [["1:default"], 0, []], f.send(:next_round)

    f.instance_variable_set(:@outstanding, 0) # room again
    acks, want, landed = f.send(:next_round)
    assert_equal [[], ["default"]], [acks, landed]
    assert_operator want, :>, 0
  end
end
