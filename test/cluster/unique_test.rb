# frozen_string_literal: true

require "test_helper"
require "deckhand/server"
require "deckhand/api"
require_relative "../support/cluster_helpers"

# Unique jobs in cluster mode: the lock lives in its queue's slot, so the
# push takes it and the acknowledgement (fetch.lua) or the outcome
# (settle.lua) releases it, each in one script with the queue's keys.
class ClusterUniqueTest < Minitest::Test
  include Deckhand::ClusterHelpers

  class SyncJob
    include Deckhand::Job

    deckhand_options unique_for: 600

    def perform(*) = nil
  end

  QUEUES = %w[default mail reports].freeze

  def store = Deckhand.config.store

  def slot(key) = cluster.call("CLUSTER", "KEYSLOT", key)

  def fetch(queue) = Deckhand::Store::Scripts::Fetch.new(store, identity: "test", queues: [queue])

  def test_the_lock_key_carries_its_queues_tag_and_plain_mode_keeps_its_name
    job = {"class" => SyncJob.name, "queue" => "mail", "args" => [1]}
    hex = Deckhand::Unique.key(job)[/\Aunique:(\h{64})\z/, 1]
    refute_nil hex, "plain mode keeps unique:<hex>"
    assert_equal "#{keys.tag("mail")}:unique:#{hex}", Deckhand::Unique.key(job, keys)
    assert_equal slot(keys.queue("mail")), slot(Deckhand::Unique.key(job, keys))
  end

  def test_a_duplicate_is_refused_in_every_queue_and_the_queue_registered
    jids = QUEUES.map { |queue| SyncJob.set(queue: queue).perform_async(42) }
    assert_equal 3, jids.compact.uniq.size
    QUEUES.each_with_index do |queue, i|
      assert_nil SyncJob.set(queue: queue).perform_async(42), "a second push to #{queue} is refused"
      job = jobs_in(queue).first
      assert_equal [jids[i]], jobs_in(queue).map { |j| j["jid"] }
      assert_match(/\A#{Regexp.escape(keys.tag(queue))}:unique:\h{64}\z/, job["unique_key"])
      assert_equal jids[i], cluster.call("GET", job["unique_key"])
    end
    assert_equal QUEUES.sort, cluster.call("SMEMBERS", keys::QUEUES).sort
    nodes = QUEUES.map { |queue| Deckhand::RedisClusterHarness.cluster.primary_for(keys.queue(queue)).port }
    assert_operator nodes.uniq.size, :>, 1, "the queues are spread over the primaries"
  end

  def test_a_scheduled_unique_job_waits_in_its_queues_scheduled_set
    jid = SyncJob.set(queue: "reports").perform_in(300, 7)
    assert_nil SyncJob.set(queue: "reports").perform_in(300, 7)
    entries = cluster.call("ZRANGE", keys.scheduled_set("reports"), 0, -1)
    assert_equal [jid], entries.map { |raw| JSON.parse(raw)["jid"] }
    assert_includes cluster.call("SMEMBERS", keys::QUEUES), "reports", "the scheduler finds the shard through the queue's registration"
    assert_operator cluster.call("PTTL", JSON.parse(entries.first)["unique_key"]), :>, 600_000, "the lock outlives the delay"
  end

  def test_the_acknowledgement_of_a_success_releases_the_lock
    jid = SyncJob.set(queue: "mail").perform_async(1)
    takes = fetch("mail").call(limit: 5, sources: [[0, 1]], acks: [])
    job = JSON.parse(takes.first.payloads.first)
    unlock = Deckhand::Unique.held_by(job, keys)
    assert_equal [job["unique_key"], jid], unlock.first(2)
    fetch("mail").call(limit: 0, sources: [], acks: [[0, 1, "", []]], unlocks: [unlock])
    assert_equal 0, cluster.call("EXISTS", job["unique_key"])
    assert SyncJob.set(queue: "mail").perform_async(1), "the same job may be pushed again"
  end

  def test_an_outcome_written_by_settle_releases_the_lock
    SyncJob.set(queue: "reports").perform_async(2)
    takes = fetch("reports").call(limit: 5, sources: [[0, 3]], acks: [])
    job = JSON.parse(takes.first.payloads.first)
    settle = Deckhand::Store::Scripts::Settle.new(store, identity: "test", queue: "reports")
    assert_equal :written, settle.drop([:lot, 3, 0], unlock: Deckhand::Unique.held_by(job, keys))
    assert_equal 0, cluster.call("EXISTS", job["unique_key"])
  end

  # A job that failed over to its retry_queue still holds the lock its push
  # took in its first queue's slot: the acknowledgement in the retry queue
  # cannot take it along, so it is released on its own.
  def test_a_lock_of_another_queues_slot_is_released_apart_from_the_acknowledgement
    SyncJob.set(queue: "default", retry_queue: "mail").perform_async(4)
    job = jobs_in("default").first.merge("queue" => "mail")
    gate = Deckhand::Server::Run::JobGate.new(config: Deckhand.config, store: store, fetcher: nil, stats: nil)
    assert_equal [job["unique_key"], job["jid"]], gate.unlock(job, "default").first(2), "its own queue's acknowledgement takes it"
    assert_equal 1, cluster.call("EXISTS", job["unique_key"])
    assert_nil gate.unlock(job, "mail")
    assert_equal 0, cluster.call("EXISTS", job["unique_key"]), "released on its own"
  end

  def test_inline_runs_and_the_data_api_use_the_tagged_key
    job = {"class" => SyncJob.name, "queue" => "default", "args" => [3], "jid" => "abc", "unique_for" => 600}
    key = Deckhand::Unique.key(job, keys)
    cluster.call("SET", key, "other")
    assert_nil SyncJob.perform_inline(3), "another job holds the lock"
    lock = Deckhand::API::UniqueLock.of(job, Deckhand.config)
    assert_equal key, lock.key
    assert_equal "other", lock.holder
    assert Deckhand::Store::Features::UniqueLocks.release(store, key)
    assert_nil Deckhand::API::UniqueLock.of(job, Deckhand.config).holder
  end
end
