# frozen_string_literal: true

require "test_helper"
require "deckhand/store/jobs/held_push"

# The reliable-push buffer's write: Redis runs every command of a pipeline,
# so a refused one leaves the others written; HeldPush says which part Redis
# did not take, and nothing it took is in that part.
class HeldPushTest < Minitest::Test
  def store = Deckhand.config.store

  def job(queue) = JSON.generate(Deckhand::Payload.normalize({"class" => "RecordJob", "args" => [], "queue" => queue}))

  def test_everything_taken_leaves_nothing
    a = job("a")
    at = Time.now.to_f + 60
    outcome = Deckhand::Store::Jobs::HeldPush.write(store, {"a" => [a]}, [at, job("a")])
    assert_nil outcome.left
    assert_nil outcome.refusal
    assert_nil outcome.not_replicated
    assert_equal [a], redis.call("LRANGE", "queue:a", 0, -1)
    assert_equal 1, redis.call("ZCARD", "schedule")
  end

  def test_the_refused_part_is_left_and_the_taken_part_is_not
    redis.call("SET", "queue:b", "not a list")
    redis.call("SET", "schedule", "not a set")
    a, b, later = job("a"), job("b"), job("a")
    at = Time.now.to_f + 60
    outcome = Deckhand::Store::Jobs::HeldPush.write(store, {"a" => [a], "b" => [b]}, [at, later], ["a"])
    assert_equal [{"b" => [b]}, [at, later], ["a"]], outcome.left
    assert_instance_of Deckhand::CommandError, outcome.refusal
    assert_equal "WRONGTYPE", outcome.refusal.code
    assert_equal [a], redis.call("LRANGE", "queue:a", 0, -1)
    assert_includes redis.call("SMEMBERS", "queues"), "b", "the set of queue names is written either way"
  end
end
