# frozen_string_literal: true

require "test_helper"
require "deckhand/store/jobs/held_push"
require_relative "../support/cluster_helpers"

# The reliable-push buffer's write in cluster mode: scheduled jobs go to their
# queues' own scheduled sets, and a refusal on one shard leaves only that
# shard's part to write again.
class ClusterHeldPushTest < Minitest::Test
  include Deckhand::ClusterHelpers

  def job(queue) = JSON.generate(Deckhand::Payload.normalize({"class" => "RecordJob", "args" => [], "queue" => queue}))

  def test_a_refused_scheduled_set_is_left_with_its_queue_and_the_others_are_written
    cluster.call("SET", keys.scheduled_set("mail"), "not a set")
    at = Time.now.to_f + 60
    now, low, mail = job("default"), job("low"), job("mail")
    outcome = Deckhand::Store::Jobs::HeldPush.write(Deckhand.config.store, {"default" => [now]}, [at, low, at, mail], %w[low mail])
    assert_equal [{}, [at, mail], ["mail"]], outcome.left
    assert_equal "WRONGTYPE", outcome.refusal.code
    assert_equal [now], cluster.call("LRANGE", keys.queue("default"), 0, -1)
    assert_equal [low], cluster.call("ZRANGE", keys.scheduled_set("low"), 0, -1)
  end
end
