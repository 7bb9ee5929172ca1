# frozen_string_literal: true

require "test_helper"
require_relative "../../../support/replica_pair"

# push_replicas against a primary with one replica of its own (the harness'
# Redis has none): a push returns once the replica has it, or raises.
class DurabilityTest < Minitest::Test
  include Deckhand::TestHelpers
  include Deckhand::ReplicaPair

  def client(**settings) = Deckhand::Client.new(config: new_config(redis: {url: primary_url}, **settings))

  def test_a_push_returns_once_the_replica_has_it
    jid = client(push_replicas: 1).push("class" => "DurableJob", "args" => [1])
    assert_equal [jid], replica.call("LRANGE", "queue:default", 0, -1).map { |raw| JSON.parse(raw)["jid"] }
    assert_equal 1, wait_calls
  end

  def test_a_bulk_push_waits_once_per_round_trip
    jids = client(push_replicas: 1).push_bulk("class" => "DurableJob", "args" => [[1], [2], [3]], "batch_size" => 2)
    assert_equal jids.sort, replica.call("LRANGE", "queue:default", 0, -1).map { |raw| JSON.parse(raw)["jid"] }.sort
    assert_equal 2, wait_calls
  end

  def test_fewer_replicas_than_asked_raise_and_the_job_is_in_the_primary
    error = assert_raises(Deckhand::NotReplicated) do
      client(push_replicas: 2, push_replicas_timeout: 0.5).push("class" => "DurableJob", "args" => [1])
    end
    assert_equal [1, 2], [error.acknowledged, error.wanted]
    assert_match(/the push of 1 job reached the primary at .* but only 1 of 2 replicas acknowledged it within 0.5 s.*pushing again would queue them twice/, error.message)
    assert_equal error.jids, primary.call("LRANGE", "queue:default", 0, -1).map { |raw| JSON.parse(raw)["jid"] }
    assert_equal 1, error.jids.size
  end

  def test_without_push_replicas_a_push_does_not_wait
    client.push("class" => "DurableJob", "args" => [1])
    assert_equal 0, wait_calls
  end

  def test_the_setting_reaches_a_store_already_built
    config = new_config(redis: {url: primary_url})
    assert_nil config.store.durability
    config.push_replicas = 1
    assert_equal [1, 1.0], [config.store.durability.replicas, config.store.durability.timeout]
    config.push_replicas = 0
    assert_nil config.store.durability
  end

  def test_bad_settings_are_refused_where_they_are_given
    error = assert_raises(Deckhand::ConfigError) { new_config(push_replicas: -1) }
    assert_match(/push_replicas must be an Integer from 0 \(do not wait\) to 16/, error.message)
    error = assert_raises(Deckhand::ConfigError) { new_config(push_replicas_timeout: 0) }
    assert_match(/push_replicas_timeout must be seconds from 0.01 to 60 .*never forever/, error.message)
  end
end
