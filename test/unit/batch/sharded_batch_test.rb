# frozen_string_literal: true

require_relative "../../support/batch/batch_helper"
require_relative "../../support/second_redis"

# A batch made in a Client.via block lives with its jobs in that block's
# Redis, where that Redis' server runs them and its callbacks.
class ShardedBatchTest < Minitest::Test
  include Deckhand::BatchHelpers

  def setup
    super
    Deckhand::SecondRedis.client.call("FLUSHALL")
  end

  def test_a_batch_in_a_via_block_and_its_jobs_go_to_that_redis
    other = Deckhand::SecondRedis.client
    batch = nil
    jids = Deckhand::Client.via(Deckhand::SecondRedis.url) do
      batch = Deckhand::Batch.new
      batch.jobs { 2.times { |n| RecordJob.perform_async(n) } }
    end
    assert_equal 2, jids.size
    queued = other.call("LRANGE", "queue:default", 0, -1).map { |raw| JSON.parse(raw) }
    assert_equal [batch.bid] * 2, queued.map { |job| job["bid"] }
    refute_empty other.call("KEYS", "*#{batch.bid}*"), "the batch's record is there"
    assert_equal 0, redis.call("DBSIZE"), "nothing in the configuration's Redis"
    assert_equal 2, batch.status.total
    assert_equal 2, Deckhand::Client.via(Deckhand::SecondRedis.url) { Deckhand::Batch.new(batch.bid).status.total }
  end
end
