# frozen_string_literal: true

require "test_helper"
require "deckhand/server"

# What ends a chunk outside a member's outcome (the shutdown interrupt, an
# error outside perform_chunk) goes through every member chain still
# paused around the chunk, once; a chain that already left is not entered
# again.
class MemberChainsTest < Minitest::Test
  def setup = nil # no Redis needed

  # Records each member's passage; the member named in LAND has the
  # shutdown land in its chain once the chunk ran, as an interrupt would.
  class Trace
    SEEN = []
    LAND = []

    def call(_instance, payload, _queue)
      name = payload["jid"]
      yield
      raise Deckhand::Shutdown, "landed after the chunk" if LAND.include?(name)
      SEEN << [:done, name]
    rescue Exception => e # rubocop:disable Lint/RescueException -- records whatever went through
      SEEN << [e.class, name]
      raise
    ensure
      SEEN << [:left, name]
    end
  end

  def members = %w[a b c].map { |jid| [jid, {"jid" => jid, "args" => []}] }

  def chains
    Trace::SEEN.clear
    Trace::LAND.clear
    Deckhand::Server::Run::MemberChains.new(Deckhand::Middleware::Chain.new.add(Trace), Object.new, "default")
  end

  def test_the_shutdown_in_the_chunk_goes_through_each_paused_chain_once
    chains = self.chains
    assert_raises(Deckhand::Shutdown) { chains.around(members) { raise Deckhand::Shutdown, "timeout" } }
    assert_equal %w[a b c].flat_map { |jid| [[Deckhand::Shutdown, jid], [:left, jid]] }, Trace::SEEN
  end

  def test_the_shutdown_landing_in_a_chain_after_the_chunk_goes_on_to_the_chains_still_paused_only
    chains = self.chains
    Trace::LAND << "b"
    assert_raises(Deckhand::Shutdown) { chains.around(members) { ->(_job) {} } }
    expected = [[:done, "a"], [:left, "a"], [Deckhand::Shutdown, "b"], [:left, "b"], [Deckhand::Shutdown, "c"], [:left, "c"]]
    assert_equal expected, Trace::SEEN, "a left once, as it succeeded; b and c saw the shutdown once"
  end

  def test_an_error_outside_perform_chunk_goes_through_each_paused_chain
    chains = self.chains
    error = assert_raises(IOError) { chains.around(members) { raise IOError, "not the chunk's own" } }
    assert_equal "not the chunk's own", error.message
    assert_equal %w[a b c].flat_map { |jid| [[IOError, jid], [:left, jid]] }, Trace::SEEN
  end
end
