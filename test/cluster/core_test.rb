# frozen_string_literal: true

require "test_helper"
require "deckhand/store/records/stat_counters"
require_relative "../support/cluster_helpers"

# A job's life in cluster mode: pushed into its queue's slot, fetched queue by
# queue, its outcome written to its queue's own retry, schedule or dead set,
# handed back at a stop, scheduled jobs moved by the scheduler.
class ClusterCoreTest < Minitest::Test
  include Deckhand::ClusterHelpers

  QUEUES = %w[default mail low].freeze
  IDENTITY = "test-host:1:cluster"

  # Fails while its "fail" argument says so, and retries far in the future
  # (the test brings the retry forward).
  class ClusterFlakyJob
    include Deckhand::Job

    deckhand_retry_in { |_count, _error, _payload| 600 }

    def perform(label)
      Deckhand::TestJobs.record([jid, label])
      raise ArgumentError, "first run fails" if Deckhand::TestJobs.runs.count { |_, l| l == label } == 1
    end
  end

  class ClusterDoomedJob
    include Deckhand::Job

    deckhand_options retry: 0

    def perform(*) = raise(ArgumentError, "always fails")
  end

  # Holds its thread until the test opens the gate.
  class ClusterGateJob
    include Deckhand::Job

    GATE = Queue.new

    def perform
      Deckhand::TestJobs.record([jid, "gate"])
      GATE.pop
    end
  end

  def store = Deckhand.config.store

  def zcard(key) = cluster.call("ZCARD", key)

  def llen(queue) = cluster.call("LLEN", keys.queue(queue))

  def test_the_queues_live_on_different_primaries
    nodes = QUEUES.map { |queue| Deckhand::RedisClusterHarness.cluster.primary_for(keys.queue(queue)).port }
    assert_equal 3, nodes.uniq.size, "the test's queues should spread over the three primaries"
  end

  def test_push_and_bulk_push_land_in_the_queues_slot
    RecordJob.set(queue: "mail").perform_async("é", {"k" => [1, nil]})
    Deckhand::Client.push_bulk("class" => "RecordJob", "queue" => "low", "args" => [[1], [2], [3]])
    assert_equal 1, llen("mail")
    assert_equal 3, llen("low")
    assert_equal ["é", {"k" => [1, nil]}], jobs_in("mail").first["args"]
    assert_equal %w[low mail], cluster.call("SMEMBERS", keys::QUEUES).sort
    assert_equal [0, 0], [cluster.call("EXISTS", "queue:mail"), cluster.call("EXISTS", "queues")], "nothing in plain mode's layout"
  end

  def test_scheduled_jobs_go_to_their_queues_scheduled_shard
    RecordJob.set(queue: "mail").perform_in(60, "later")
    Deckhand::Client.push_bulk("class" => "RecordJob", "queue" => "low", "args" => [[1], [2]], "at" => Time.now.to_f + 60)
    middleware_config = new_config
    middleware_config.client_middleware.add(Class.new { def call(*) = yield })
    Deckhand::Client.new(config: middleware_config).push("class" => "RecordJob", "queue" => "default", "args" => [0], "at" => Time.now.to_f + 60)
    assert_equal [1, 2, 1], [zcard(keys.scheduled_set("mail")), zcard(keys.scheduled_set("low")), zcard(keys.scheduled_set("default"))]
    assert_equal QUEUES.sort, cluster.call("SMEMBERS", keys::QUEUES).sort, "the scheduler finds the shards by the queues' names"
    assert_equal 0, llen("mail")
    assert_equal 4, Deckhand::Store::Records::StatCounters.totals(store)[:scheduled], "the shards add up"
  end

  # A pusher stands between the client and Redis: the store reads each
  # scheduled job's queue from its payload.
  def test_scheduled_jobs_through_a_pusher_find_their_shard
    previous = Deckhand::Client.pusher
    Deckhand::Client.pusher = ->(queued, scheduled, config) { Deckhand::Client.write(queued, scheduled, config) }
    RecordJob.set(queue: "low").perform_in(60, "x")
    RecordJob.set(queue: "mail").perform_in(60, "y")
    assert_equal [1, 1], [zcard(keys.scheduled_set("low")), zcard(keys.scheduled_set("mail"))]
  ensure
    Deckhand::Client.pusher = previous
  end

  def test_the_scheduler_moves_due_jobs_of_every_shard_into_their_queues
    RecordJob.set(queue: "mail").perform_in(60, "m")
    RecordJob.set(queue: "low").perform_in(60, "r")
    RecordJob.set(queue: "low").perform_in(600, "later")
    schedule = Deckhand::Store::Scripts::Schedule.new(store)
    moved, corrupt, earliest = schedule.call(now: Time.now.to_f + 120, limit: 100, stamp: 1)
    assert_equal [2, 0], [moved, corrupt]
    refute_nil earliest
    assert_equal [["m"]], jobs_in("mail").map { |job| job["args"] }
    assert_equal [["r"]], jobs_in("low").map { |job| job["args"] }
    assert_equal 1, jobs_in("mail").first["enqueued_at"]
    assert_equal 1, zcard(keys.scheduled_set("low"))
  end

  # retry_queue: the retry waits in the failed job's queue's shard (its
  # in-flight slot) and goes to the other queue when due.
  def test_a_due_entry_for_another_queue_is_claimed_and_moved_once
    payload = JSON.generate("class" => "RecordJob", "queue" => "low", "jid" => "abc", "args" => ["x"])
    cluster.call("ZADD", keys.retry_set("mail"), "1", payload)
    cluster.call("SADD", keys::QUEUES, "mail")
    moved, = Deckhand::Store::Scripts::Schedule.new(store).call(now: Time.now.to_f, limit: 100, stamp: 7)
    assert_equal 1, moved
    assert_equal [payload.delete_suffix("}") + ",\"enqueued_at\":7}"], cluster.call("LRANGE", keys.queue("low"), 0, -1)
    assert_equal 0, zcard(keys.retry_set("mail"))
    assert_includes cluster.call("SMEMBERS", keys::QUEUES), "low"
  end

  def test_a_fetch_takes_queue_by_queue_in_order_up_to_the_limit
    QUEUES.each { |queue| Deckhand::Client.push_bulk("class" => "RecordJob", "queue" => queue, "args" => [[queue, 1], [queue, 2]]) }
    fetch = Deckhand::Store::Scripts::FetchByQueue.new(store, identity: IDENTITY, queues: QUEUES)
    takes = fetch.call(limit: 5, sources: [[2, 11], [0, 12], [1, 13]], acks: [])
    assert_equal [[0, 2], [1, 2], [2, 1]], takes.map { |take| [take.source, take.payloads.size] }
    assert_equal [["low", 1], ["low", 2]], takes[0].payloads.map { |raw| JSON.parse(raw)["args"] }
    assert_equal [["mail", 2]], jobs_in("mail").map { |job| job["args"] }
    error = assert_raises(Deckhand::CommandError) { fetch.call(limit: 5, sources: [[2, 11]], acks: []) }
    assert_match(/DECKHAND_REPLAYED/, error.message)
    # Settled: every lot leaves Redis with the acknowledgements, the next
    # source fills up while the first comes back short.
    takes = fetch.call(limit: 5, sources: [[0, 14], [1, 15]], acks: [[2, 11, "", []], [0, 12, "", []], [1, 13, "", []]])
    assert_equal [[1, 1]], takes.map { |take| [take.source, take.payloads.size] }
    assert_equal 0, cluster.call("EXISTS", keys.lot(IDENTITY, "low", 11), keys.inflight(IDENTITY, "low"))
    assert_equal ["15"], cluster.call("HKEYS", keys.inflight(IDENTITY, "mail"))
  end

  # Weighted shares: a source asks for its share and what the sources
  # before it left unused.
  def test_a_fetch_by_shares_passes_an_unused_share_on
    Deckhand::Client.push_bulk("class" => "RecordJob", "queue" => "default", "args" => [[1]])
    Deckhand::Client.push_bulk("class" => "RecordJob", "queue" => "mail", "args" => (1..9).zip)
    Deckhand::Client.push_bulk("class" => "RecordJob", "queue" => "low", "args" => (1..9).zip)
    fetch = Deckhand::Store::Scripts::FetchByQueue.new(store, identity: IDENTITY, queues: QUEUES)
    takes = fetch.call(limit: 8, sources: [[0, 41, 4], [1, 42, 2], [2, 43, 2]], acks: [])
    assert_equal [[0, 1], [1, 5], [2, 2]], takes.map { |take| [take.source, take.payloads.size] }
    assert_equal [[6], [7], [8], [9]], jobs_in("mail").map { |job| job["args"] }.reverse
  end

  # The first queue's jobs stand when a later queue's call fails: that
  # source is reported lost (its lot to hand back), the rest not asked.
  def test_a_later_queues_failure_keeps_what_came_before
    Deckhand::Client.push_bulk("class" => "RecordJob", "queue" => "default", "args" => [[1], [2]])
    Deckhand::Client.push_bulk("class" => "RecordJob", "queue" => "low", "args" => [[3]])
    cluster.call("SET", keys.queue("mail"), "not a list")
    lost = []
    fetch = Deckhand::Store::Scripts::FetchByQueue.new(store, identity: IDENTITY, queues: QUEUES,
      lost: ->(pairs, error) { lost << [pairs, error] })
    takes = fetch.call(limit: 5, sources: [[0, 31], [1, 32], [2, 33]], acks: [])
    assert_equal [[0, 2]], takes.map { |take| [take.source, take.payloads.size] }
    assert_equal [[[1, 32]]], lost.map(&:first)
    assert_kind_of Deckhand::CommandError, lost[0][1]
    assert_equal 1, llen("low"), "the queue after the failed one was not asked"
    plain = Deckhand::Store::Scripts::FetchByQueue.new(store, identity: IDENTITY, queues: QUEUES)
    assert_raises(Deckhand::CommandError) { plain.call(limit: 5, sources: [[1, 34]], acks: []) }
  end

  def test_hand_back_returns_each_queues_jobs_to_its_front
    QUEUES.each { |queue| Deckhand::Client.push_bulk("class" => "RecordJob", "queue" => queue, "args" => [[queue, 1], [queue, 2]]) }
    before = QUEUES.to_h { |queue| [queue, cluster.call("LRANGE", keys.queue(queue), 0, -1)] }
    fetch = Deckhand::Store::Scripts::FetchByQueue.new(store, identity: IDENTITY, queues: QUEUES)
    fetch.call(limit: 6, sources: [[0, 1], [1, 2], [2, 3]], acks: [])
    requeue = Deckhand::Store::Scripts::Requeue.new(store, identity: IDENTITY, queues: QUEUES)
    assert_equal 1, requeue.some([[1, 2, 1]])
    assert_equal 5, requeue.all
    QUEUES.each { |queue| assert_equal before[queue], cluster.call("LRANGE", keys.queue(queue), 0, -1), "queue #{queue}" }
    assert_equal 0, Deckhand::Store::Inflight.count(store, IDENTITY, QUEUES)
  end

  # The idle waiter's wait: the move, then the recovery counts' version.
  def test_a_blocking_move_lands_a_job_and_reads_the_recovery_version
    cluster.call("HSET", keys.recoveries("mail"), Deckhand::Store::Inflight::Recoveries::VERSION, "3")
    RecordJob.set(queue: "mail").perform_async("woken")
    conn = store.dedicated
    moved, version = conn.wait_move(keys.queue("mail"), keys.landing(IDENTITY, "mail"), 1,
      hash: keys.recoveries("mail"), field: Deckhand::Store::Inflight::Recoveries::VERSION)
    assert_equal ["woken"], JSON.parse(moved)["args"]
    assert_equal "3", version
    assert_equal [moved], cluster.call("LRANGE", keys.landing(IDENTITY, "mail"), 0, -1)
    assert_equal [nil, "3"], conn.wait_move(keys.queue("mail"), keys.landing(IDENTITY, "mail"), 0.1,
      hash: keys.recoveries("mail"), field: Deckhand::Store::Inflight::Recoveries::VERSION)
  ensure
    conn&.close
  end

  def test_a_server_runs_jobs_from_queues_on_every_primary_in_strict_order
    QUEUES.reverse_each { |queue| Deckhand::Client.push_bulk("class" => "RecordJob", "queue" => queue, "args" => (1..20).map { |n| [queue, n] }) }
    with_server(new_config(queues: QUEUES, concurrency: 1)) do
      wait_for(message: "60 jobs") { Deckhand::TestJobs.runs.size == 60 }
    end
    ran = Deckhand::TestJobs.runs.map(&:last)
    assert_equal QUEUES.flat_map { |queue| (1..20).map { |n| [queue, n] } }, ran
    assert_equal 0, Deckhand::Store::Records::StatCounters.totals(store)[:enqueued]
  end

  def test_a_server_runs_weighted_queues
    QUEUES.each { |queue| Deckhand::Client.push_bulk("class" => "RecordJob", "queue" => queue, "args" => (1..30).map { |n| [queue, n] }) }
    with_server(new_config(queues: ["default,3", "mail,2", "low,1"], concurrency: 3)) do |launcher|
      wait_for(message: "90 jobs") { Deckhand::TestJobs.runs.size == 90 }
      wait_for(message: "the last acknowledgements") { Deckhand::Store::Inflight.count(store, launcher.identity, QUEUES).zero? }
    end
    assert_equal QUEUES.flat_map { |queue| (1..30).map { |n| [queue, n] } }.sort, Deckhand::TestJobs.runs.map(&:last).sort
  end

  # A throttled queue is asked in its own call, its use kept in its slot.
  def test_a_throttled_queue_runs_its_jobs_within_its_limit
    QUEUES.each { |queue| Deckhand::Client.push_bulk("class" => "RecordJob", "queue" => queue, "args" => (1..10).map { |n| [queue, n] }) }
    config = new_config(queues: QUEUES, concurrency: 4, throttle: {"mail" => {concurrency: 1}})
    with_server(config) do |launcher|
      wait_for(message: "30 jobs") { Deckhand::TestJobs.runs.size == 30 }
      wait_for(message: "the last acknowledgements") { Deckhand::Store::Inflight.count(store, launcher.identity, QUEUES).zero? }
    end
    assert_equal QUEUES.flat_map { |queue| (1..10).map { |n| [queue, n] } }.sort, Deckhand::TestJobs.runs.map(&:last).sort
    assert_equal 0, cluster.call("HGET", keys.throttle("mail"), "~held").to_i, "every slot given back"
  end

  # Every queue found empty: the idle waiters block on their queues (on
  # three nodes); a push wakes one.
  def test_a_job_pushed_to_an_idle_server_runs
    with_server(new_config(queues: QUEUES, concurrency: 2)) do
      wait_for(message: "a waiter blocked on each primary") { blocked_clients == 3 }
      RecordJob.set(queue: "low").perform_async("idle")
      wait_for(message: "the job") { Deckhand::TestJobs.runs.map(&:last) == [["idle"]] }
    end
  end

  def test_a_failed_job_waits_in_its_queues_retry_shard_and_comes_back
    config = new_config(queues: QUEUES, concurrency: 2, scheduler_interval: 0.05)
    with_server(config) do
      ClusterFlakyJob.set(queue: "mail").perform_async("flaky")
      wait_for(message: "the retry in mail's shard") { zcard(keys.retry_set("mail")) == 1 }
      assert_equal 1, Deckhand::Store::Records::StatCounters.totals(store)[:retries]
      raw = cluster.call("ZRANGE", keys.retry_set("mail"), 0, -1).first
      assert_equal "mail", JSON.parse(raw)["queue"]
      cluster.call("ZADD", keys.retry_set("mail"), "XX", "1", raw) # due now
      wait_for(message: "the second run") { Deckhand::TestJobs.runs.size == 2 }
      wait_for(message: "the retry shard empty") { zcard(keys.retry_set("mail")).zero? }
    end
  end

  # retry_queue: the retry waits in the failed queue's shard, then runs
  # from the other queue (on another primary).
  def test_a_retry_for_another_queue_comes_back_there
    with_server(new_config(queues: QUEUES, concurrency: 2, scheduler_interval: 0.05)) do
      ClusterFlakyJob.set(queue: "mail", retry_queue: "low").perform_async("moved")
      wait_for(message: "the retry in mail's shard") { zcard(keys.retry_set("mail")) == 1 }
      raw = cluster.call("ZRANGE", keys.retry_set("mail"), 0, -1).first
      assert_equal "low", JSON.parse(raw)["queue"]
      cluster.call("ZADD", keys.retry_set("mail"), "XX", "1", raw)
      wait_for(message: "the second run") { Deckhand::TestJobs.runs.size == 2 }
      wait_for(message: "the retry shard empty") { zcard(keys.retry_set("mail")).zero? }
    end
  end

  def test_a_scheduled_job_runs_when_due_and_reliable_push_files_it_in_its_shard
    config = new_config(queues: QUEUES, concurrency: 2, scheduler_interval: 0.05, reliable_push: true)
    Deckhand::Client.new(config: config).push("class" => "RecordJob", "queue" => "low", "args" => ["soon"], "at" => Time.now.to_f + 600)
    raw = cluster.call("ZRANGE", keys.scheduled_set("low"), 0, -1).first
    refute_nil raw, "in low's scheduled set"
    with_server(config) do
      cluster.call("ZADD", keys.scheduled_set("low"), "XX", "1", raw) # due now
      wait_for(message: "the scheduled job") { Deckhand::TestJobs.runs.map(&:last) == [["soon"]] }
    end
    assert_equal 0, zcard(keys.scheduled_set("low"))
  end

  def test_a_job_out_of_retries_lands_in_its_queues_dead_shard
    with_server(new_config(queues: QUEUES, concurrency: 2)) do
      ClusterDoomedJob.set(queue: "low").perform_async("bytes ✓ \u0000")
      wait_for(message: "the dead entry") { zcard(keys.dead_set("low")) == 1 }
    end
    dead = JSON.parse(cluster.call("ZRANGE", keys.dead_set("low"), 0, -1).first)
    assert_equal ["bytes ✓ \u0000"], dead["args"]
    assert_equal 1, Deckhand::Store::Records::StatCounters.totals(store)[:dead]
  end

  # The gate job runs first (strict order), the others wait fetched behind
  # it on the one thread; a stop hands them back at once, to each queue.
  def test_a_stop_hands_back_the_jobs_fetched_but_not_started
    ClusterGateJob.perform_async
    QUEUES.each { |queue| Deckhand::Client.push_bulk("class" => "RecordJob", "queue" => queue, "args" => [[queue, 1], [queue, 2]]) }
    config = new_config(queues: QUEUES, concurrency: 1, prefetch: 10, timeout: 30)
    stopper = nil
    with_server(config) do |launcher|
      wait_for(message: "the gate job") { Deckhand::TestJobs.runs.size == 1 }
      wait_for(message: "the jobs fetched") { launcher.capsules.first.fetcher.outstanding == 7 }
      assert_equal 0, QUEUES.sum { |queue| llen(queue) }
      stopper = Thread.new { launcher.stop }
      wait_for(message: "the unstarted jobs back in their queues") { QUEUES.sum { |queue| llen(queue) } == 6 }
      ClusterGateJob::GATE << :open
      stopper.join
      assert_equal 0, Deckhand::Store::Inflight.count(store, launcher.identity, QUEUES)
    end
    assert_equal 1, Deckhand::TestJobs.runs.size
    QUEUES.each { |queue| assert_equal [[queue, 1], [queue, 2]], jobs_in(queue).map { |job| job["args"] }.reverse, queue }
  ensure
    ClusterGateJob::GATE << :open if stopper&.alive?
    stopper&.join
    ClusterGateJob::GATE.clear
  end

  private

  def blocked_clients
    Deckhand::RedisClusterHarness.cluster.primaries.sum do |node|
      conn = RedisClient.new(url: node.url)
      conn.call("INFO", "clients")[/blocked_clients:(\d+)/, 1].to_i
    ensure
      conn&.close
    end
  end
end
