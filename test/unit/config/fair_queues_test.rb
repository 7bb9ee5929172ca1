# frozen_string_literal: true

require "test_helper"
require_relative "../../support/replica_pair"

# push_replicas for a tenant's push (fair_push.lua): it waits for the
# replica like a plain push, or raises NotReplicated naming its jobs, which
# stay in the primary for their fair share.
class FairDurabilityTest < Minitest::Test
  include Deckhand::ReplicaPair

  def setup
    super
    @pusher = Deckhand::Client.pusher
    Deckhand::Client.pusher = nil
  end

  def teardown
    Deckhand::Client.pusher = @pusher
    super
  end

  def push(count) = Deckhand::Client.push_bulk("class" => "RecordJob", "queue" => "reports", "tenant" => "acme", "args" => Array.new(count) { |i| [i] })

  def test_a_tenant_s_push_returns_once_the_replica_has_it
    # The replica's acknowledgement may take a while on a loaded machine:
    # the push waits for it, up to push_replicas_timeout.
    Deckhand.config = new_config(redis: {url: primary_url}, push_replicas: 1, push_replicas_timeout: 10, fair_queues: {"reports" => {}})
    push(1) # the first job goes straight onto the empty queue
    jids = push(3)
    assert_equal 3, replica.call("ZCARD", "deckhand:fair:reports")
    assert_equal jids.sort, replica.call("ZRANGE", "deckhand:fair:reports", 0, -1).map { |m| JSON.parse(m.split("\n", 2).last)["jid"] }.sort
  end

  def test_a_tenant_s_push_short_of_replicas_raises_naming_its_jobs
    Deckhand.config = new_config(redis: {url: primary_url}, push_replicas: 2, push_replicas_timeout: 0.2)
    error = assert_raises(Deckhand::NotReplicated) { push(3) }
    assert_equal 3, error.jids.size
    assert_equal 3, primary.call("LLEN", "queue:reports") + primary.call("ZCARD", "deckhand:fair:reports"), "the jobs are in the primary"
  end
end
