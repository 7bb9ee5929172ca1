# frozen_string_literal: true

require "test_helper"

# The heartbeat writes the members of the chunks a process runs by changes
# (Server::Chores::ChunkRoster, with the process record, into
# Store::Records::ChunkMembers): a chunk's jids when it starts, gone when it
# ends, and the whole set again after a beat that may not have reached Redis.
class ChunkRosterTest < Minitest::Test
  Members = Deckhand::Store::Records::ChunkMembers
  Slot = Struct.new(:queue, :payload, :run_at, :busy, :chunk_jids)

  def store = Deckhand.config.store

  def key = store.layout.chunk_members("h:1:a")

  def setup
    super
    @roster = Deckhand::Server::Chores::ChunkRoster.new
  end

  # One beat: what the roster says to write, written; returns the change.
  def beat(running)
    change = @roster.change(running)
    store.pipelined do |pipe|
      Deckhand::Store::Records::ProcessRecord.write(pipe, store.layout, "h:1:a", info: "{}", running: running, inflight: 0, rtt_us: 0,
        quiet: false, rss_kb: 0, ttl: 40, chunks: change)
    end
    @roster.settled(true)
    change
  end

  def chunk(*jids) = Slot.new("default", "{}", 0, true, jids)

  def test_a_chunk_s_members_are_written_when_it_starts_and_removed_when_it_ends
    big = (1..1000).map { |n| format("%024x", n) }
    assert_equal big.size, beat("t1" => chunk(*big), "t2" => Slot.new("default", "{}", 0, true, nil)).added.size
    assert_equal 1000, redis.call("SCARD", key)
    assert_operator redis.call("TTL", key), :>, 30
    assert_equal [[], []], beat("t1" => chunk(*big)).then { |change| [change.added, change.removed] }, "a beat with no chunk starting or ending: the TTL alone"

    change = beat("t1" => chunk(*big), "t2" => chunk("a" * 24, "b" * 24))
    assert_equal [["a" * 24, "b" * 24], []], [change.added.sort, change.removed]
    assert_equal "h:1:a", Members.holder(store, ["h:0:z", "h:1:a"], big[999])
    assert_nil Members.holder(store, ["h:0:z", "h:1:a"], "c" * 24)

    assert_equal big.size, beat("t2" => chunk("a" * 24, "b" * 24)).removed.size
    assert_equal ["a" * 24, "b" * 24], redis.call("SMEMBERS", key).sort
    beat({})
    assert_equal 0, redis.call("EXISTS", key)
    assert_nil beat({}), "nothing running, nothing written"
  end

  def test_after_a_beat_that_failed_the_set_is_written_anew
    beat("t1" => chunk("a" * 24, "b" * 24))
    @roster.change("t1" => chunk("c" * 24)) # its beat failed: Redis may have it or not
    @roster.settled(false)
    change = beat("t1" => chunk("c" * 24))
    assert change.fresh
    assert_equal ["c" * 24], redis.call("SMEMBERS", key), "the ended chunk's members gone with the set"
    refute beat("t1" => chunk("c" * 24)).fresh
  end

  def test_a_clean_shutdown_removes_the_set
    beat("t1" => chunk("a" * 24))
    Deckhand::Store::Records::Heartbeats.forget(store, "h:1:a")
    assert_equal 0, redis.call("EXISTS", key)
  end
end
