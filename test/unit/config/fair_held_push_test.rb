# frozen_string_literal: true

require "test_helper"
require "support/reliable_push_helpers"

# Reliable push on a fair queue: the jobs of tenants held while Redis was
# away are filed in their tenant's turn when it answers again, not ahead of
# the other tenants' jobs.
class FairHeldPushTest < Minitest::Test
  include Deckhand::ReliablePushHelpers

  FAIR = {"reports" => {}}.freeze

  def direct = @direct ||= RedisClient.new(url: @server.url)

  def teardown
    @direct&.close
    super
  end

  def payload(tenant, n) = JSON.generate(Deckhand::Payload.normalize({"class" => "RecordJob", "queue" => "reports", "args" => [n], "tenant" => tenant}.compact))

  def members = direct.call("ZRANGE", "deckhand:fair:reports", 0, -1).map { |member| member.split("\n", 2) }

  def test_held_pushes_of_a_tenant_wait_their_turn_when_redis_answers
    client = Deckhand::Client.new(config: config(fair_queues: FAIR))
    client.push_bulk("class" => "RecordJob", "queue" => "reports", "tenant" => "a", "args" => Array.new(20) { |i| [i] })
    @server.kill
    held = Array.new(3) { |i| client.push("class" => "RecordJob", "queue" => "reports", "tenant" => "b", "args" => [i]) }
    plain = client.push("class" => "RecordJob", "queue" => "reports", "args" => ["none"])
    @server = redis_server(@server.port).start
    buffer = Deckhand::Client::PushBuffer.for(client.instance_variable_get(:@config))
    wait_for(message: "the held pushes written") { buffer.size.zero? }
    tenants = members.map(&:first)
    assert_equal 22, tenants.size, "a's 19 waiting and b's 3"
    assert_equal held, members.filter_map { |tenant, raw| JSON.parse(raw)["jid"] if tenant == "b" }
    assert_operator tenants.rindex("b"), :<=, 5, "b's jobs alternate with a's at the front"
    assert_includes direct.call("LRANGE", "queue:reports", 0, -1).map { |raw| JSON.parse(raw)["jid"] }, plain, "a job of no tenant goes onto the queue"
    assert_equal "3", direct.call("HGET", "deckhand:tenants:reports", "n:b")
  end

  def test_a_held_tenant_s_push_written_twice_is_added_once
    store = config(fair_queues: FAIR).store
    direct.call("LPUSH", "queue:reports", payload(nil, 0))
    job = payload("b", 1)
    2.times do
      outcome = Deckhand::Store::Jobs::HeldPush.write(store, {"reports" => [job]}, [], fair: Deckhand::Config::FairQueues.new(FAIR))
      assert_nil outcome.left
    end
    assert_equal [["b", job]], members
    assert_equal "1", direct.call("HGET", "deckhand:tenants:reports", "n:b")
  end

  def test_a_refused_tenant_s_push_is_left_and_the_rest_written
    store = config(fair_queues: FAIR).store
    direct.call("SET", "deckhand:tenants:reports", "not a hash")
    direct.call("LPUSH", "queue:reports", first = payload(nil, 0))
    job, none, other = payload("b", 1), payload(nil, 2), JSON.generate(Deckhand::Payload.normalize({"class" => "RecordJob", "queue" => "mail", "args" => []}))
    outcome = Deckhand::Store::Jobs::HeldPush.write(store, {"reports" => [none, job], "mail" => [other]}, [], fair: Deckhand::Config::FairQueues.new(FAIR))
    assert_equal [{"reports" => [job]}, [], nil], outcome.left
    assert_kind_of Deckhand::RedisError, outcome.refusal
    assert_equal [none, first], direct.call("LRANGE", "queue:reports", 0, -1)
    assert_equal [other], direct.call("LRANGE", "queue:mail", 0, -1)
    assert_equal 0, direct.call("EXISTS", "deckhand:fair:reports")
  end
end
