# frozen_string_literal: true

require "test_helper"
require "deckhand/api"

# Client.cancel finds a running chunk's member wherever it stands in its
# chunk (Store::Records::ChunkMembers), not only among the 20 its process's
# work record lists: the member sees its cancel at once and ends cancelled,
# never retried, while the chunk's other members succeed.
class CancelChunkMemberTest < Minitest::Test
  # A chunk of 50 that waits until its 40th member is cancelled, then
  # records what chunk.cancelled? said of each member.
  class LongChunkJob
    include Deckhand::Job

    deckhand_options chunk: {size: 50, wait: 2}, retry: 5

    def perform_chunk(chunk)
      Deckhand::TestJobs.record([:chunk, chunk.size])
      fortieth = chunk.jobs[39]
      sleep 0.01 until chunk.cancelled?(fortieth)
      Deckhand::TestJobs.record([:saw, chunk.jobs.each_index.select { |n| chunk.cancelled?(chunk.jobs[n]) }])
    end
  end

  def setup
    super
    Deckhand::TestJobs.reset
    Deckhand.config = new_config(concurrency: 1, heartbeat_interval: 0.1, cancel_grace: 30)
    Deckhand.config.logger = Logger.new(StringIO.new)
  end

  def api = Deckhand::API.new

  def runs(what) = Deckhand::TestJobs.runs.select { |event, _| event == what }.map(&:last)

  def test_a_member_past_the_twentieth_is_found_running_and_ends_cancelled_alone
    jids = LongChunkJob.perform_bulk((1..50).each_slice(1).to_a)
    with_server do |launcher|
      wait_for(message: "the chunk of 50") { runs(:chunk) == [50] }
      wait_for(message: "the heartbeat to tell of the chunk") { api.running.any? { |r| r.chunk_size == 50 } }
      refute_includes api.running.flat_map(&:chunk_jids), jids[39], "past the members the work record lists"

      assert_equal :cancelling_running, Deckhand::Client.cancel(jids[39])
      wait_for(message: "the chunk to end") { runs(:saw).any? }
      wait_for(message: "the cancellation recorded") { api.cancellation(jids[39]) }
      wait_for(message: "nothing left in flight") { inflight_keys(launcher.identity).empty? }
      wait_for(message: "the members' set gone with the chunk") { redis.call("EXISTS", "deckhand:chunk-members:#{launcher.identity}") == 0 }
    end
    assert_equal [[39]], runs(:saw), "only the cancelled member answers cancelled?"
    assert_equal ["running", "default"], [api.cancellation(jids[39]).where, api.cancellation(jids[39]).queue]
    assert_equal [0, 0, 0], [redis.call("ZCARD", "retry"), redis.call("ZCARD", "dead"), redis.call("LLEN", "queue:default")],
      "none retried, none dead, none back in the queue: the other 49 succeeded"
    assert_empty (jids - [jids[39]]).filter_map { |jid| api.cancellation(jid) }, "no other member recorded as cancelled"
  end
end
