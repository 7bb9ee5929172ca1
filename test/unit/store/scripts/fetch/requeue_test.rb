# frozen_string_literal: true

require "test_helper"
require_relative "../../../../support/script_guard"

# requeue.lua hands in-flight jobs back to their queues: every key it writes
# is read first, so a key of the wrong type refuses the whole call before
# anything moved, and the jobs wait in flight for the next try. It runs
# behind the guard that fails any call on an undeclared key.
class RequeueTest < Minitest::Test
  Requeue = Deckhand::ScriptGuard.wrap(Deckhand::Store::Scripts::Requeue)
  IDENTITY = "host:1:requeue"

  def requeue = Requeue.new(Deckhand.config.store, identity: IDENTITY, queues: %w[default mail])

  def keys = Deckhand::Store::Layout::Plain

  def job(n) = %({"class":"RecordJob","args":[#{n}],"jid":"#{n.to_s.rjust(24, "0")}"})

  def file_lot(queue, id, jobs)
    redis.call("RPUSH", keys.lot(IDENTITY, queue, id), *jobs)
    redis.call("HSET", keys.inflight(IDENTITY, queue), id.to_s, jobs.size.to_s)
  end

  def queue(name) = redis.call("LRANGE", "queue:#{name}", 0, -1)

  def test_a_queues_set_of_the_wrong_type_refuses_the_hand_back_before_anything_moved
    file_lot("default", 3, [job(1), job(2)])
    file_lot("mail", 4, [job(3)])
    redis.call("RPUSH", keys.landing(IDENTITY, "mail"), job(4))
    redis.call("SET", "queues", "not a set")
    error = assert_raises(Deckhand::CommandError) { requeue.all }
    assert_equal "WRONGTYPE", error.code
    assert_equal [], queue("default") + queue("mail"), "nothing handed back"
    assert_equal [job(4)], redis.call("LRANGE", keys.landing(IDENTITY, "mail"), 0, -1)

    redis.call("DEL", "queues")
    assert_equal 4, requeue.all
    assert_equal [job(2), job(1)], queue("default"), "each job once, the first taken at the front"
    assert_equal [job(4), job(3)], queue("mail")
    assert_equal [], redis.call("KEYS", "deckhand:*#{IDENTITY}*")
  end

  def test_a_landed_job_goes_back_only_once_its_queue_takes_it
    redis.call("RPUSH", keys.landing(IDENTITY, "mail"), job(5))
    redis.call("SET", "queue:mail", "not a list")
    assert_raises(Deckhand::CommandError) { requeue.some([], landed: [[1, job(5)]]) }
    assert_equal [job(5)], redis.call("LRANGE", keys.landing(IDENTITY, "mail"), 0, -1), "still in flight"

    redis.call("DEL", "queue:mail")
    assert_equal 1, requeue.some([], landed: [[1, job(5)]])
    assert_equal [job(5)], queue("mail")
    assert_equal 0, requeue.some([], landed: [[1, job(5)]]), "a repeated call moves nothing"
    assert_equal [job(5)], queue("mail")
  end
end
