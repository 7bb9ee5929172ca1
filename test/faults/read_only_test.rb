# frozen_string_literal: true

require "test_helper"
require "socket"

# A read-only Redis (a replica; READONLY) refuses a script that writes. The
# client library reports READONLY as a connection error, not a command
# error: a script run with reads behind it (the fetch and its LRANGEs) must
# still come out of the store as Deckhand's refusal, never as the reply.
# Before, the fetch returned the error object as its reply, the fetcher's
# thread died on it, and the acknowledgements it carried were dropped: jobs
# that had succeeded were handed back at the stop and ran again.
class ReadOnlyTest < Minitest::Test
  def test_a_fetch_refused_by_a_read_only_redis_raises_a_deckhand_command_error
    redis.call("LPUSH", "queue:default", JSON.generate({"class" => "RecordJob", "args" => [], "jid" => "a"}))
    fetch = Deckhand::Store::Scripts::Fetch.new(Deckhand::RedisHarness.store, identity: "h:1:x", queues: ["default"])
    redis.call("REPLICAOF", "127.0.0.1", dead_port.to_s)
    begin
      error = assert_raises(Deckhand::CommandError) { fetch.call(limit: 10, sources: [[0, 1]], acks: [[0, 7, "", []]]) }
      assert_match(/READONLY/, error.message)
      assert_equal "READONLY", error.code
    ensure
      redis.call("REPLICAOF", "NO", "ONE")
    end
    assert_equal 1, redis.call("LLEN", "queue:default"), "nothing moved"
  end

  private

  def dead_port
    server = TCPServer.new("127.0.0.1", 0)
    server.addr[1]
  ensure
    server&.close
  end
end
