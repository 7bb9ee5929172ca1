# frozen_string_literal: true

require "test_helper"
require "deckhand/server"
require_relative "../support/cluster_helpers"
require_relative "../support/fair/fair_returns_shared"

# Due retries and scheduled jobs of a fair queue in cluster mode: each
# queue's sets, tenants' jobs and tenants hash share its slot, so the move
# into a tenant's turn stays one script per set.
class ClusterFairReturnsTest < Minitest::Test
  include Deckhand::ClusterHelpers
  include Deckhand::FairReturnsTests

  def setup
    super
    Deckhand.config = fair_config
  end

  # retry_queue: a retry waiting in another queue's shard is claimed, then
  # filed in its tenant's turn in its fair queue's slot.
  def test_a_claimed_retry_for_a_fair_queue_goes_into_its_tenant_s_turn
    backlog("reports", "a", 5)
    payload = JSON.generate("class" => "RecordJob", "queue" => "reports", "jid" => "r1", "tenant" => "b", "args" => ["b"], "enqueued_at" => 5)
    cluster.call("ZADD", keys.retry_set("mail"), "1", payload)
    cluster.call("SADD", keys::QUEUES, "mail")
    assert_equal 1, schedule(0).first
    assert_includes cluster.call("ZRANGE", keys.fair_jobs("reports"), 0, -1), "b\n#{payload}"
    assert_equal 1, cluster.call("LLEN", keys.queue("reports"))
    assert_equal 0, cluster.call("ZCARD", keys.retry_set("mail"))
  end

  # The reliable-push buffer's write: the tenants' script rides in the same
  # pipeline, routed to the fair queue's slot.
  def test_a_held_push_files_a_tenant_s_job_in_its_turn
    backlog("reports", "a", 5)
    job = JSON.generate(Deckhand::Payload.normalize({"class" => "RecordJob", "queue" => "reports", "args" => [1], "tenant" => "b"}))
    other = JSON.generate(Deckhand::Payload.normalize({"class" => "RecordJob", "queue" => "mail", "args" => [2]}))
    outcome = Deckhand::Store::Jobs::HeldPush.write(Deckhand.config.store, {"reports" => [job], "mail" => [other]}, [], fair: Deckhand.config.fair_queues)
    assert_nil outcome.left
    assert_includes cluster.call("ZRANGE", keys.fair_jobs("reports"), 0, -1), "b\n#{job}"
    assert_equal [other], cluster.call("LRANGE", keys.queue("mail"), 0, -1)
  end
end
