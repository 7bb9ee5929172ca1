# frozen_string_literal: true

require "test_helper"
require "stringio"
require "deckhand/batch"
require_relative "../support/cluster_helpers"
require_relative "../support/cluster_batch_helpers"

# A running server pushes the batch callbacks a crashed caller left in the
# outbox (Server::Chores::BatchOutboxDrain), with no batch call and no boot needed;
# it leaves alone those a live caller is still pushing, and two servers
# draining at once push each callback once. The drains here look every
# 50 ms instead of every 30 s.
class ClusterBatchOutboxDrainTest < Minitest::Test
  include Deckhand::ClusterHelpers
  include Deckhand::ClusterBatchHelpers

  BatchKeys = Deckhand::Store::Layout::ClusterBatches
  Ops = Deckhand::Store::Scripts::BatchOps
  Drain = Deckhand::Server::Chores::BatchOutboxDrain

  # Holds each pass that took entries from the outbox until a second one
  # took them too, so two drains are known to push the same callbacks.
  class Rendezvous < Ops
    @lock = Mutex.new
    @met = ConditionVariable.new
    @arrived = 0

    class << self
      def arrived = @lock.synchronize { @arrived }

      def reset = @lock.synchronize { @arrived = 0 }

      def meet(count, timeout: 10)
        deadline = ::Process.clock_gettime(::Process::CLOCK_MONOTONIC) + timeout
        @lock.synchronize do
          @arrived += 1
          @met.broadcast
          while @arrived < count && (left = deadline - ::Process.clock_gettime(::Process::CLOCK_MONOTONIC)) > 0
            @met.wait(@lock, left)
          end
        end
      end
    end

    private

    def deliver(others, own)
      self.class.meet(2) unless others.empty?
      super
    end
  end

  def setup
    super
    Rendezvous.reset
    @drains = []
    @stores = []
  end

  def teardown
    @drains.each { |drain| drain.stop.join(5) }
    @stores.each(&:shutdown)
    super
  end

  def config = Deckhand.config

  def new_batch(*events, queue: "default")
    batch = Deckhand::Batch.new
    batch.callback_queue = queue
    events.each { |event| batch.on(event, "ClusterBatchCallbacks", "event" => event.to_s) }
    batch
  end

  # A batch of one job whose success fires its callbacks in a caller that
  # dies before pushing them, ago_ms before now. Returns the bid. (Any batch
  # call pushes what is older than the outbox age: make the batches first.)
  def crashed_batch(*events, queue: "default", ago_ms: 0) = crash(*batch_of_one(*events, queue: queue), ago_ms: ago_ms)

  # [bid, jid] of a new batch of one job.
  def batch_of_one(*events, queue: "default")
    batch = new_batch(*events, queue: queue)
    [batch.bid, batch.jobs { Deckhand::Client.push("class" => "ClusterBatchWork", "args" => [1], "queue" => "mail") }.first]
  end

  def crash(bid, jid, ago_ms: 0)
    now = ::Process.clock_gettime(::Process::CLOCK_REALTIME, :millisecond) - ago_ms
    assert_equal 1, CrashBeforePush.new(config.store, now_ms: now, stamp: Deckhand::Payload.now).success(bid, jid)
    bid
  end

  def old = Ops::OUTBOX_AGE + 1_000

  # Another server's connection to the cluster (its own store, as another
  # process would have).
  def other_store
    (@stores << Deckhand::Store.new({cluster: Deckhand::RedisClusterHarness.urls.reverse})).last
  end

  def start_drain(store: other_store, script: Ops, config: self.config)
    (@drains << Drain.new(config: config, store: store, interval: 0.05, script: script).start).last
  end

  def stop_drains = @drains.each { |drain| drain.stop.join(5) }

  def outbox_size = cluster.call("ZCARD", BatchKeys::OUTBOX)

  # The batch of each callback the outbox holds.
  def outbox_bids = cluster.call("HVALS", BatchKeys::OUTBOX_JOBS).map { |entry| JSON.parse(JSON.parse(entry)[1])["args"][0] }

  # [bid, event] of each callback job in `queue`, in the order they run.
  def callbacks_in(queue)
    jobs_in(queue).reverse.select { |job| job["class"] == Deckhand::Batch::CallbackJob.name }
      .map { |job| [job["args"][0], job["args"][1]] }
  end

  def test_a_running_server_pushes_what_a_crashed_caller_left_without_another_batch_call
    bid = crashed_batch(:complete, :success, ago_ms: old)
    assert_equal 2, outbox_size
    assert_equal [], callbacks_in("default")
    start_drain
    wait_for(message: "the outbox drained") { outbox_size.zero? }
    stop_drains
    assert_equal [[bid, "complete"], [bid, "success"]], callbacks_in("default")
  end

  def test_two_servers_draining_at_once_push_each_callback_once
    queues = %w[default mail reports]
    bids = queues.map { |queue| batch_of_one(:complete, :success, queue: queue) }.map { |bid, jid| crash(bid, jid, ago_ms: old) }
    assert_equal 6, outbox_size
    2.times { start_drain(script: Rendezvous) }
    wait_for(message: "the outbox drained") { outbox_size.zero? }
    stop_drains
    assert_operator Rendezvous.arrived, :>=, 2, "the two drains did not take the same callbacks at once"
    queues.zip(bids).each do |queue, bid|
      assert_equal [[bid, "complete"], [bid, "success"]], callbacks_in(queue), "in #{queue}"
    end
  end

  def test_a_callback_its_caller_is_still_pushing_is_left_to_it
    young, left = [batch_of_one(:complete, :success), batch_of_one(:complete, :success, queue: "reports")]
    young = crash(*young)
    left = crash(*left, ago_ms: old)
    assert_equal 4, outbox_size
    start_drain
    wait_for(message: "a pass of the drain") { outbox_size < 4 }
    stop_drains
    assert_equal [[left, "complete"], [left, "success"]], callbacks_in("reports")
    assert_equal [], callbacks_in("default"), "a callback younger than the outbox age was pushed"
    assert_equal [young, young], outbox_bids
  end

  def test_a_redis_failure_is_logged_and_the_next_interval_tries_again
    log = StringIO.new
    logged = new_config
    logged.logger = ::Logger.new(log)
    young, left = [batch_of_one(:success, queue: "reports"), batch_of_one(:success)]
    young = crash(*young)
    left = crash(*left, ago_ms: old)
    aside = "#{BatchKeys::TAG}:aside"
    cluster.call("RENAME", BatchKeys::OUTBOX, aside)
    cluster.call("SET", BatchKeys::OUTBOX, "not a sorted set")
    start_drain(config: logged)
    wait_for(message: "the failure in the log") { log.string.include?("WRONGTYPE") }
    assert_includes log.string, "batch outbox"
    assert_includes log.string, BatchKeys::OUTBOX.inspect
    cluster.call("RENAME", aside, BatchKeys::OUTBOX) # in one step: no pass sees an empty outbox
    wait_for(message: "the old callback pushed") { outbox_size < 2 }
    stop_drains
    assert_equal [[left, "success"]], callbacks_in("default")
    assert_equal [young], outbox_bids, "after its failure the drain took a callback its caller is still pushing"
    assert_equal [], callbacks_in("reports")
    assert_includes log.string, "Redis answers again"
  end

  def test_a_server_in_cluster_mode_runs_the_drain_and_stops_it
    drains = -> { Thread.list.select { |t| t.name == "deckhand-batch-outbox" && t.alive? } }
    with_server(new_config(queues: ["mail"])) do
      wait_for(message: "the drain's thread") { drains.call.size == 1 }
    end
    assert_empty drains.call
    assert_nil Drain.build(config: new_config, store: Deckhand::RedisHarness.store), "plain mode has no outbox"
  end
end
