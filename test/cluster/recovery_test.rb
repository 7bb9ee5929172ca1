# frozen_string_literal: true

require "test_helper"
require "support/reliability_helpers"
require "support/cluster_helpers"

# A dead process's jobs come back in cluster mode: its in-flight record is
# spread over the slots of its queues (on different primaries), so the reaper
# recovers it one queue at a time, then forgets the process in the fleet's slot.
class ClusterRecoveryTest < Minitest::Test
  include Deckhand::ReliabilityHelpers
  include Deckhand::ClusterHelpers

  QUEUES = %w[default mail reports].freeze

  def setup
    super
    Deckhand.config = new_config(heartbeat_interval: 0.5, heartbeat_ttl: 1, reaper_interval: 0.1, concurrency: 3, timeout: 2)
  end

  def store = Deckhand.config.store

  def test_a_dead_process_s_jobs_go_back_to_the_front_of_queues_on_every_primary
    primaries = QUEUES.map { |q| Deckhand::RedisClusterHarness.cluster.primary_for(keys.queue(q)).port }
    assert_operator primaries.uniq.size, :>, 1, "the queues must live on different primaries"
    redis.call("LPUSH", keys.queue("default"), payload("waiting"))
    identity = dead_process(queues: QUEUES,
      lots: {"default" => [[payload("a"), payload("b")], [[payload("c"), payload("x")], [1]]],
             "mail" => [[payload("m1", queue: "mail"), payload("m2", queue: "mail")]],
             "reports" => [[payload("r", queue: "reports")]]},
      landing: {"default" => [payload("d")], "mail" => [payload("m0", queue: "mail")]})

    assert_equal 1, reaper.reap

    assert_equal %w[waiting d c b a], queue_jids("default"), "a, taken first, must be the next job out; x was settled"
    assert_equal %w[m0 m2 m1], queue_jids("mail")
    assert_equal %w[r], queue_jids("reports")
    assert_equal QUEUES.sort, redis.call("SMEMBERS", keys::QUEUES).sort
    QUEUES.each do |queue|
      assert_equal 0, redis.call("EXISTS", keys.inflight(identity, queue)), "the in-flight record of #{queue} is gone"
      assert_equal 0, redis.call("EXISTS", keys.landing(identity, queue))
      (1..4).each { |id| assert_equal 0, redis.call("EXISTS", keys.lot(identity, queue, id)) }
    end
    assert_equal 0, redis.call("HEXISTS", keys::OWNERS, identity)
    assert_equal 0, redis.call("SISMEMBER", keys::PROCESSES, identity)
    assert_equal 1, recoveries("m1", queue: "mail")
  end

  def test_a_process_that_beat_since_it_was_judged_keeps_its_jobs
    identity = live_process("slow:1:abc", queues: %w[default mail], lots: {"mail" => [[payload("m", queue: "mail")]]})
    outcome = Deckhand::Store::Scripts::Recover.new(store).call(identity: identity, beat: "1700000000.0",
      queues: %w[default mail], limit: 3, ttl: 60)
    assert_equal [-1, 0, 0], outcome
    assert_empty jobs_in("mail")
    assert_equal 1, redis.call("HEXISTS", keys::OWNERS, identity)
  end

  def test_a_process_recovered_already_is_not_recovered_twice
    identity = dead_process(lots: {"default" => [[payload("a")]]})
    recover = Deckhand::Store::Scripts::Recover.new(store)
    assert_equal [1, 1, 0], recover.call(identity: identity, beat: nil, queues: ["default"], limit: 3, ttl: 60)
    assert_equal [-2, 0, 0], recover.call(identity: identity, beat: nil, queues: ["default"], limit: 3, ttl: 60)
    assert_equal %w[a], queue_jids("default")
  end

  def test_a_poison_pill_goes_to_the_dead_set_of_its_own_queue
    identity = dead_process(queues: %w[mail],
      lots: {"mail" => [[payload("pill", queue: "mail"), payload("innocent", queue: "mail")]]},
      recoveries: {"mail" => {"pill" => 2}}, suspects: {"mail" => ["pill"]})

    reaper.reap

    assert_equal %w[innocent], queue_jids("mail")
    dead = redis.call("ZRANGE", keys.dead_set("mail"), 0, -1).map { |raw| JSON.parse(raw) }
    assert_equal ["pill"], dead.map { |job| job["jid"] }
    assert_equal "Deckhand::PoisonPill", dead.first["error_class"]
    assert_match(/running when its process died 3 times \(the last: #{identity}\)/, dead.first["error_message"])
    assert_equal 0, redis.call("HLEN", keys.poison("mail"))
  end

  # Alone in its lot, its queue's name cleared meanwhile: the pill is still
  # buried, and the name is back, since it is how the queue's dead set is found.
  def test_a_poison_pill_alone_in_its_lot_is_buried_and_its_queue_named
    raw = payload("pill", queue: "mail")
    dead_process(queues: %w[mail], lots: {"mail" => [[raw]]},
      recoveries: {"mail" => {"pill" => 2}}, suspects: {"mail" => ["pill"]})

    reaper.reap

    assert_equal 0, redis.call("HLEN", keys.poison("mail"))
    dead = redis.call("ZRANGE", keys.dead_set("mail"), 0, -1).map { |entry| JSON.parse(entry) }
    assert_equal [JSON.parse(raw)], dead.map { |job| job.except("error_class", "error_message", "failed_at") }
    assert_equal ["mail"], redis.call("SMEMBERS", keys::QUEUES)
  end

  def test_the_named_connections_of_a_process_are_seen_on_every_primary
    other = Deckhand::Store.new({cluster: Deckhand::RedisClusterHarness.urls})
    other.name_connections(Deckhand::Store::Connection::Clients.name_of("web-1:4242:ab12cd"))
    QUEUES.each { |q| other.call("LLEN", keys.queue(q)) } # connects to each queue's primary
    assert_includes Deckhand::Store::Connection::Clients.names(store), "deckhand:web-1:4242:ab12cd"
    other.shutdown
    wait_for(message: "the closed connections to leave CLIENT LIST") do
      !Deckhand::Store::Connection::Clients.names(store).include?("deckhand:web-1:4242:ab12cd")
    end
  end
end
