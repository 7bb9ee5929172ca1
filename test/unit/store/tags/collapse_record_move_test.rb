# frozen_string_literal: true

require "test_helper"
require "deckhand/store/tags/collapse_record_move"

# The carry of debounced and deduplicated keys' records from a queue's old
# tag to its new one (the queue move's last copy step), on a plain Redis:
# every key here is one a cluster keeps in one of the two tags' slots.
class CollapseRecordMoveTest < Minitest::Test
  Names = Deckhand::Store::Layout::TagNames
  FROM = "{queue:m*il}"
  TO = "{queue~2:m*il}"

  def store = Deckhand.config.store

  def digest(name) = Digest::SHA256.hexdigest(name)

  def job(name, jid) = JSON.generate("class" => "DraftJob", "args" => [name], "jid" => jid, "queue" => "m*il")

  # A record under `tag` naming a job waiting in the tag's schedule, due at `score`.
  def waiting(tag, mode, name, jid, score, ttl: 60_000)
    raw = job(name, jid)
    redis.call("ZADD", Names.set(tag, "schedule"), score, raw)
    record = Names.collapse(tag, mode, digest(name))
    redis.call("HSET", record, "jid", jid, "payload", raw)
    redis.call("PEXPIRE", record, ttl)
    raw
  end

  def jid_of(tag, mode, name) = redis.call("HGET", Names.collapse(tag, mode, digest(name)), "jid")

  def test_each_record_comes_with_its_life_and_leaves_the_old_tag
    redis.call("ZADD", Names.set(TO, "schedule"), 100, job("a", "a1")) # the scheduled set came along before the records
    redis.call("HSET", Names.collapse(FROM, "debounce", digest("a")), "jid", "a1", "payload", job("a", "a1"))
    redis.call("PEXPIRE", Names.collapse(FROM, "debounce", digest("a")), 50_000)
    redis.call("HSET", Names.collapse(FROM, "dedupe", digest("b")), "jid", "b1", "payload", job("b", "b1"))
    redis.call("PEXPIRE", Names.collapse(FROM, "dedupe", digest("b")), 600_000)
    other = Names.collapse("{queue:mail}", "debounce", digest("c")) # another queue, which the escaped pattern leaves
    redis.call("HSET", other, "jid", "c1", "payload", job("c", "c1"))
    redis.call("SET", Names.collapse(FROM, "debounce", digest("d")), "not a record")
    batches = 0

    assert_equal 2, Deckhand::Store::Tags::CollapseRecordMove.new(store).call(FROM, TO) { batches += 1 }

    assert_equal 1, batches
    assert_equal %w[a1 b1], [jid_of(TO, "debounce", "a"), jid_of(TO, "dedupe", "b")]
    assert_operator redis.call("PTTL", Names.collapse(TO, "debounce", digest("a"))), :<=, 50_000
    assert_operator redis.call("PTTL", Names.collapse(TO, "dedupe", digest("b"))), :>, 500_000
    assert_equal 0, redis.call("EXISTS", Names.collapse(FROM, "debounce", digest("a")), Names.collapse(FROM, "dedupe", digest("b")))
    assert_equal "c1", redis.call("HGET", other, "jid"), "a queue whose name the pattern's * would match stays"
    assert_equal "not a record", redis.call("GET", Names.collapse(FROM, "debounce", digest("d"))), "a key of another type is left alone"
  end

  def test_a_record_a_push_wrote_under_the_new_tag_keeps_the_debounced_job_due_last
    carried = waiting(FROM, "debounce", "a", "a1", 100)
    redis.call("ZADD", Names.set(TO, "schedule"), 100, carried)
    waiting(TO, "debounce", "a", "a2", 110) # pushed later: it stays
    early = waiting(FROM, "debounce", "b", "b1", 100)
    redis.call("ZADD", Names.set(TO, "schedule"), 100, early)
    waiting(TO, "debounce", "b", "b2", 90) # due first: the carried one stays
    waiting(FROM, "dedupe", "c", "c1", 100)
    waiting(TO, "dedupe", "c", "c2", 100) # a dedupe window opened under the new tag stays

    Deckhand::Store::Tags::CollapseRecordMove.new(store).call(FROM, TO)

    assert_equal %w[a2 b1 c2], [jid_of(TO, "debounce", "a"), jid_of(TO, "debounce", "b"), jid_of(TO, "dedupe", "c")]
    assert_equal [job("a", "a2"), job("b", "b1"), job("c", "c2")].sort, redis.call("ZRANGE", Names.set(TO, "schedule"), 0, -1).sort
  end

  def test_a_record_rewritten_under_the_old_tag_since_it_was_read_stays_for_the_last_copy
    record = Names.collapse(FROM, "debounce", digest("a"))
    redis.call("HSET", record, "jid", "a2", "payload", job("a", "a2"))
    drop = Deckhand::Store::Scripts::MoveCollapseDrop.new(store)
    assert_equal [0], drop.call_many([[record, "a1"]])
    assert_equal "a2", redis.call("HGET", record, "jid")
    assert_equal [1], drop.call_many([[record, "a2"]])
    assert_equal 0, redis.call("EXISTS", record)
  end
end
