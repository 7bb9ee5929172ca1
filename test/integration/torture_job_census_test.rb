# frozen_string_literal: true

require "test_helper"
require "json"
require_relative "../../torture/support/job_census"

# Scenario 17's census of the jobs a drain gave up on (Torture::JobCensus),
# on a real Redis laid out as Deckhand keeps it: a job still in a queue, in
# flight, scheduled, retrying or dead is late, not lost; only a job found
# nowhere is lost.
class TortureJobCensusTest < Minitest::Test
  def test_it_counts_each_job_where_it_is_and_the_rest_nowhere
    redis = Deckhand::RedisHarness.client
    redis.call("LPUSH", "queue:default", job("a1"), job("a2"))
    redis.call("LPUSH", "deckhand:lot:vm:1:abc:default:7", job("b1"))
    redis.call("LPUSH", "deckhand:landing:vm:1:abc:timed", job("b2"))
    redis.call("ZADD", "schedule", 1, job("c1"))
    redis.call("ZADD", "retry", 1, job("d1"))
    redis.call("ZADD", "dead", 1, job("e1"))
    redis.call("SADD", "ledger:done", job("f1")) # a key of no place Deckhand keeps jobs

    places = Torture::JobCensus.new(redis).places(%w[a1 a2 b1 b2 c1 d1 e1 f1 ab].map { |id| jid(id) })
    assert_equal({"queue" => 2, "in-flight" => 2, "schedule" => 1, "retry" => 1, "dead" => 1, "nowhere" => 2}, places)
    assert_equal "queue 2, nowhere 0", Torture::JobCensus.text({"queue" => 2, "nowhere" => 0})
  end

  private

  def jid(id) = id.rjust(24, "0")

  def job(id) = JSON.generate("class" => "Torture::ClockJob", "args" => [5], "jid" => jid(id), "queue" => "default")
end
