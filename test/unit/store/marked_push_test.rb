# frozen_string_literal: true

require "test_helper"
require "support/cut_reply_proxy"

# A marked push (Store::MarkedPush): one transaction with its mark. Its
# outcome is the same whether the reply came or was cut and Redis was
# asked: the mark names what Redis refused. A mark Redis answered for is
# unlinked by the next marked push, so pushes do not leave one key each.
class MarkedPushTest < Minitest::Test
  def job(queue) = JSON.generate(Deckhand::Payload.normalize({"class" => "RecordJob", "args" => [], "queue" => queue}))

  def write(store, queued, scheduled = [], queues = nil) = Deckhand::Store::MarkedPush.write(store, queued, scheduled, queues)

  def marks = redis.call("KEYS", "deckhand:push:*")

  def test_everything_taken_leaves_nothing_and_one_mark
    a, later = job("a"), job("a")
    at = Time.now.to_f + 60
    outcome = write(Deckhand.config.store, {"a" => [a]}, [at, later], ["a"])
    assert_equal [nil, nil, nil, []], [outcome.left, outcome.refusal, outcome.unlisted, outcome.doubt]
    assert_equal [a], redis.call("LRANGE", "queue:a", 0, -1)
    assert_equal [later], redis.call("ZRANGE", "schedule", 0, -1)
    assert_equal ["written:"], marks.map { |mark| redis.call("GET", mark) }
    assert_operator redis.call("TTL", marks.first), :>, 500
  end

  def test_a_mark_redis_answered_for_is_unlinked_by_the_next_push
    store = Deckhand.config.store
    5.times { write(store, {"a" => [job("a")]}) }
    assert_equal 1, marks.size, "the last push's mark only"
    assert_equal 5, redis.call("LLEN", "queue:a")
  end

  # The same refusal, told by the EXEC's reply and, when that reply is cut,
  # by the mark Redis is asked for.
  def test_a_refused_part_is_left_with_its_refusal_whether_the_reply_came_or_was_cut
    redis.call("SET", "queue:b", "not a list")
    proxy = Deckhand::CutReplyProxy.start(port: Deckhand::RedisHarness.server.port)
    cut = Deckhand::Store.new({url: proxy.url})
    [Deckhand.config.store, cut].each_with_index do |store, i|
      proxy.cut_reply_to { |command| command.first.casecmp?("LPUSH") } if i == 1
      a, b = job("a"), job("b")
      outcome = write(store, {"a" => [a], "b" => [b]})
      assert_equal [{"b" => [b]}, [], nil], outcome.left
      assert_equal ["WRONGTYPE", "queue:b"], [outcome.refusal.code, outcome.refusal.key]
      assert_empty outcome.doubt
      assert_equal a, redis.call("LINDEX", "queue:a", 0)
    end
    assert_equal 1, proxy.cuts, "the second write's reply was cut"
    assert_equal 2, redis.call("LLEN", "queue:a"), "each a once"
  ensure
    cut&.shutdown
    proxy&.stop
  end
end
