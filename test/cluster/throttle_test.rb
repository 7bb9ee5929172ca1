# frozen_string_literal: true

require "test_helper"
require "deckhand/server"
require_relative "../support/cluster_helpers"

# Queue throttles in cluster mode: each throttled queue's state hash lives in
# its queue's slot ({queue:<name>}:throttle), where fetch.lua and
# requeue.lua use it with the queue's keys; the settings set at run time
# stay one hash, read and written by single commands.
class ClusterThrottleTest < Minitest::Test
  include Deckhand::ClusterHelpers

  QUEUES = %w[default mail reports].freeze
  CAP = Deckhand::Config::Throttle.limit!("mail", {concurrency: 2})

  def store = Deckhand.config.store

  def slot(key) = cluster.call("CLUSTER", "KEYSLOT", key)

  def test_each_throttle_hash_is_in_its_queues_slot_and_plain_mode_keeps_its_name
    QUEUES.each do |queue|
      assert_equal "#{store.layout.tag(queue)}:throttle", store.layout.throttle(queue)
      assert_equal slot(keys.queue(queue)), slot(store.layout.throttle(queue))
      assert_equal "deckhand:throttle:#{queue}", Deckhand::Store::Layout::Plain.throttle(queue)
    end
  end

  def test_run_time_limits_and_usage_work_against_the_cluster
    Deckhand::Store::Features::Throttles.set(store, "mail", {"concurrency" => 2})
    assert_equal({"mail" => {"concurrency" => 2}}, Deckhand::Store::Features::Throttles.overrides(store))
    cluster.call("HSET", keys.throttle("mail"), "~held", 2, "t", "1.5")
    assert_equal({held: 2, tokens: 1.5}, Deckhand::Store::Features::Throttles.usage(store, "mail"))
    assert_equal({"mail" => 2, "reports" => 0, "default" => 0}, Deckhand::Store::Features::Throttles.held(store, %w[mail reports default]), "one pipeline over several slots")
    Deckhand::Store::Features::Throttles.reset(store, "mail")
    assert_empty Deckhand::Store::Features::Throttles.overrides(store)
  end

  # fetch.lua with one queue and its throttle, its KEYS laid out by
  # Store::Scripts::Fetch (the throttle hash last): the cap holds and the
  # slots are counted in the queue's slot.
  def test_fetch_lua_enforces_a_throttle_kept_in_the_queues_slot
    cluster.call("LPUSH", keys.queue("mail"), "a", "b", "c", "d")
    reply = throttled_fetch("mail", lot: 1)
    assert_equal 2, reply[2], "two jobs leave: the cap is 2"
    assert_operator reply.last, :>, 0, "jobs were held back: the fetcher is told when to look again"
    assert_equal "2", cluster.call("HGET", keys.throttle("mail"), "~held")
    assert_equal 2, cluster.call("LLEN", keys.queue("mail"))
  end

  private

  def throttled_fetch(queue, lot:)
    fetch = Deckhand::Store::Scripts::Fetch.new(store, identity: "p", queues: [queue])
    list, argv, = fetch.command(limit: 10, sources: [[0, lot]], acks: [], throttles: [[0, CAP, 0]])
    assert_equal keys.throttle(queue), list.last
    store.evalsha(Deckhand::Store::Scripts::Fetch, list, argv)
  end
end
