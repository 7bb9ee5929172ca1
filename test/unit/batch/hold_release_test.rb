# frozen_string_literal: true

require_relative "../../support/batch/batch_helper"

# Once a batch's jobs are out, Redis refusing to let go of the batch's hold
# (here: the queues set of the wrong type, which the release guards) must not
# fail the write: the application would push the jobs again. The release is
# tried again, then finished in the background, and the batch completes.
class BatchHoldReleaseTest < Minitest::Test
  include Deckhand::BatchHelpers

  def held_batch
    batch = Deckhand::Batch.new
    assert_equal "ok", Deckhand::Batch::Ops.script(Deckhand.config).create(batch.bid, **batch.creation_args)
    batch.bid
  end

  def hold(bid) = redis.call("HGET", "deckhand:batch:#{bid}", "hold")

  def test_a_refused_release_is_tried_again_until_redis_takes_it
    bid = held_batch
    redis.call("SET", "queues", "not a set")
    releasing = Thread.new { Deckhand::Batch::HoldRelease.new(Deckhand.config).call([bid]) }
    wait_for(message: "a refused try, then a pause") { releasing.status == "sleep" }
    assert_equal "1", hold(bid), "still held while Redis refuses"
    redis.call("DEL", "queues")
    assert_nil releasing.value
    assert_equal "0", hold(bid)
  end

  def test_past_its_patience_the_write_returns_and_the_hold_is_let_go_in_the_background
    log = StringIO.new
    Deckhand.config.logger = Logger.new(log)
    bid = held_batch
    redis.call("SET", "queues", "not a set")
    assert_nil Deckhand::Batch::HoldRelease.new(Deckhand.config, patience: 0).call([bid])
    assert_includes log.string, "its jobs are queued, but Redis refused to let go of the batch's hold"
    assert_equal "1", hold(bid)
    redis.call("DEL", "queues")
    wait_for(message: "the hold let go in the background") { hold(bid) == "0" }
    wait_for(message: "the background release says so") { log.string.include?("#{bid}: its hold is let go") }
  end
end
