# frozen_string_literal: true

require "test_helper"
require "deckhand/batch"
require_relative "../support/cluster_helpers"
require_relative "../support/cluster_batch_helpers"
require_relative "../support/script_guard"

# Batches in cluster mode: their bookkeeping in the {batches} slot, their jobs
# and callback jobs in their queues' slots, on other primaries. Outcomes are
# recorded at the store level (Batch::Tracker, what the server's middleware
# calls) so these tests do not depend on the server's cluster-mode fetch.
class ClusterBatchTest < Minitest::Test
  include Deckhand::ClusterHelpers
  include Deckhand::ClusterBatchHelpers

  BatchKeys = Deckhand::Store::Layout::ClusterBatches
  Ops = Deckhand::Store::Scripts::BatchOps
  QUEUES = %w[default mail reports].freeze

  # A process that dies after pushing the callbacks, before clearing them
  # from the outbox.
  class CrashAfterPush < Ops
    def deliver(others, own)
      pushes = Deckhand::Store::Scripts::BatchCallbacks.new(@store, now_ms: @now_ms)
      (others + own).group_by { |_, queue, _| queue }.each do |queue, list|
        pushes.push(queue, list.map { |jid, _, payload| [jid, payload] })
      end
    end
  end

  # A call whose script ran but whose reply was lost (the connection broke).
  class ReplyLost < Ops
    def outbox_call(...)
      super
      raise Deckhand::ConnectionError, "the connection broke before the reply came"
    end
  end

  def config = Deckhand.config

  def new_batch(*events, queue: "default")
    batch = Deckhand::Batch.new
    batch.callback_queue = queue
    events.each { |event| batch.on(event, "ClusterBatchCallbacks", "event" => event.to_s) }
    batch
  end

  def push(queue, arg) = Deckhand::Client.push("class" => "ClusterBatchWork", "args" => [arg], "queue" => queue)

  # [bid, event] of each callback job in `queue`, in the order they run.
  def callbacks_in(queue)
    jobs_in(queue).reverse.select { |job| job["class"] == Deckhand::Batch::CallbackJob.name }
      .map { |job| [job["args"][0], job["args"][1]] }
  end

  def outbox_size = cluster.call("ZCARD", BatchKeys::OUTBOX)

  def ops(now_ms: Process.clock_gettime(Process::CLOCK_REALTIME, :millisecond), klass: Ops) = klass.new(config.store, now_ms: now_ms, stamp: Deckhand::Payload.now)

  def test_a_batchs_jobs_go_to_queues_on_different_primaries_and_its_callbacks_fire_once
    primaries = QUEUES.map { |queue| Deckhand::RedisClusterHarness.cluster.primary_for(keys.queue(queue)).port }
    assert_operator primaries.uniq.size, :>, 1, "the test's queues all landed on one primary"
    batch = new_batch(:complete, :success, queue: "reports")
    jids = batch.jobs do
      QUEUES.each { |queue| push(queue, queue) }
      Deckhand::Client.push("class" => "ClusterBatchWork", "args" => ["later"], "queue" => "mail", "at" => Time.now.to_f + 3600)
    end
    QUEUES.each do |queue|
      assert_equal [[batch.bid, queue]], jobs_in(queue).map { |job| [job["bid"], job["args"].first] }
    end
    assert_equal 1, cluster.call("ZCARD", keys.scheduled_set("mail"))
    assert_equal QUEUES.sort, cluster.call("SMEMBERS", keys::QUEUES).sort
    assert_equal 4, batch.status.total

    jids.first(3).each { |jid| assert tracker.success(batch.bid, jid) }
    assert_equal [], callbacks_in("reports")
    assert tracker.success(batch.bid, jids.last)
    refute tracker.success(batch.bid, jids.last), "a job that runs twice is counted once"
    assert_equal [[batch.bid, "complete"], [batch.bid, "success"]], callbacks_in("reports")
    assert_equal 0, outbox_size
    ttl = cluster.call("PTTL", BatchKeys.pushed(keys.tag("reports")))
    assert_operator ttl, :<=, Deckhand::Store::Scripts::BatchCallbacks::GRACE_MS, "the queue remembers them briefly once delivered"
    assert_operator ttl, :>, 0
    assert_includes cluster.call("SMEMBERS", keys::QUEUES), "reports"
    status = Deckhand::Batch::Status.new(batch.bid)
    assert status.complete? && status.success?
    assert_equal 0, status.pending
  end

  def test_with_push_replicas_a_batchs_jobs_wait_for_a_replica_like_any_push
    Deckhand.config = new_config(push_replicas: 1, push_replicas_timeout: 5)
    Deckhand::Batch.install(Deckhand.config)
    waits = -> { Deckhand::RedisClusterHarness.cluster.primaries.sum { |node| wait_calls(node) } }
    before = waits.call
    batch = new_batch(:success)
    jids = batch.jobs { QUEUES.each { |queue| push(queue, queue) } }
    assert_operator waits.call, :>=, before + 1, "no WAIT followed the batch's pushes"
    assert_equal jids.sort, QUEUES.flat_map { |queue| jobs_in(queue) }.map { |job| job["jid"] }.sort
  end

  def wait_calls(node)
    conn = RedisClient.new(url: node.url)
    conn.call("INFO", "commandstats")[/cmdstat_wait:calls=(\d+)/, 1].to_i
  ensure
    conn&.close
  end

  def test_a_failure_completes_the_batch_and_its_retry_then_succeeds_it
    batch = new_batch(:complete, :success)
    jids = batch.jobs { QUEUES.each { |queue| push(queue, queue) } }
    jids.first(2).each { |jid| tracker.success(batch.bid, jid) }
    job = jobs_in("reports").first
    assert tracker.failure(batch.bid, job, RuntimeError.new("boom"))
    assert_equal [[batch.bid, "complete"]], callbacks_in("default").reject { |bid, _| bid != batch.bid }
    assert_equal ["boom"], Deckhand::Batch::Status.new(batch.bid).failure_info.map { |f| f["error_message"] }
    assert tracker.success(batch.bid, job["jid"])
    assert_equal [[batch.bid, "complete"], [batch.bid, "success"]], callbacks_in("default")
  end

  def test_a_child_batchs_callbacks_join_its_parent_which_succeeds_after_them
    parent = new_batch(:success, queue: "mail")
    child = nil
    parent_jids = parent.jobs do
      push("default", "p")
      child = new_batch(:success, :complete, queue: "reports")
      child.jobs { push("reports", "c") }
    end
    assert_equal [child.bid], parent.status.child_bids
    assert tracker.success(parent.bid, parent_jids.first)
    child_job = jobs_in("reports").find { |job| job["bid"] == child.bid }
    assert tracker.success(child.bid, child_job["jid"])
    child_callbacks = jobs_in("reports").select { |job| job["class"] == Deckhand::Batch::CallbackJob.name }
    assert_equal [parent.bid, parent.bid], child_callbacks.map { |job| job["bid"] }, "a child's callbacks are jobs of its parent"
    assert_equal [], callbacks_in("mail"), "the parent succeeded before its child's callbacks ran"
    child_callbacks.each { |job| assert tracker.success(parent.bid, job["jid"]) }
    assert_equal [[parent.bid, "success"]], callbacks_in("mail")
    assert parent.status.success?
  end

  def test_a_death_fires_the_batchs_death_callbacks_and_its_parents_once
    parent = new_batch(:death, queue: "mail")
    child = nil
    parent.jobs do
      child = new_batch(:death, queue: "reports")
      child.jobs { push("default", "a") && push("default", "b") }
    end
    first, second = jobs_in("default").reverse
    assert tracker.death(first, RuntimeError.new("gone"))
    assert tracker.death(second, RuntimeError.new("gone too"))
    assert_equal [[child.bid, "death"]], callbacks_in("reports")
    assert_equal [[parent.bid, "death"]], callbacks_in("mail")
    assert_equal 2, Deckhand::Batch::Status.new(child.bid).dead_count
  end

  def test_callbacks_left_by_a_process_that_died_before_pushing_them_are_pushed_once_by_the_next
    batch = new_batch(:complete, :success)
    jid = batch.jobs { push("mail", "x") }.first
    assert_equal 1, ops(klass: CrashBeforePush).success(batch.bid, jid)
    assert_equal [], callbacks_in("default")
    assert_equal 2, outbox_size

    other = new_batch
    other.jobs { push("mail", "y") }
    assert_equal [], callbacks_in("default"), "a fresh outbox entry is left to the process that recorded it"
    later = Process.clock_gettime(Process::CLOCK_REALTIME, :millisecond) + Ops::OUTBOX_AGE + 1
    assert_equal 2, ops(now_ms: later).deliver_pending
    assert_equal [[batch.bid, "complete"], [batch.bid, "success"]], callbacks_in("default")
    assert_equal 0, outbox_size
    assert_equal 0, ops(now_ms: later + 1).deliver_pending
    assert_equal 2, callbacks_in("default").size
  end

  def test_callbacks_a_process_pushed_but_did_not_clear_are_not_pushed_again
    batch = new_batch(:complete, :success)
    jid = batch.jobs { push("mail", "x") }.first
    assert_equal 1, ops(klass: CrashAfterPush).success(batch.bid, jid)
    assert_equal 2, callbacks_in("default").size
    assert_equal 2, outbox_size
    later = Process.clock_gettime(Process::CLOCK_REALTIME, :millisecond) + Ops::OUTBOX_AGE + 1
    assert_equal 2, ops(now_ms: later).deliver_pending, "both were handed over again"
    assert_equal [[batch.bid, "complete"], [batch.bid, "success"]], callbacks_in("default"), "and not pushed twice"
    assert_equal 0, outbox_size
  end

  def test_callbacks_a_process_could_not_push_are_pushed_by_its_next_batch_call
    batch = new_batch(:complete, :success, queue: "reports")
    jid = batch.jobs { push("mail", "x") }.first
    pushed = BatchKeys.pushed(keys.tag("reports"))
    cluster.call("SET", pushed, "not a sorted set") # the push to the queue's slot fails
    assert_raises(Deckhand::CommandError) { tracker.success(batch.bid, jid) }
    assert_equal [], callbacks_in("reports")
    assert_equal 2, outbox_size
    cluster.call("DEL", pushed)
    # What the server's batch middleware does after a Redis error: it calls again.
    refute tracker.success(batch.bid, jid), "the outcome was recorded before the push failed"
    assert_equal [[batch.bid, "complete"], [batch.bid, "success"]], callbacks_in("reports"), "pushed without waiting for the outbox age"
    assert_equal 0, outbox_size
    new_batch.jobs { push("mail", "y") }
    assert_equal 2, callbacks_in("reports").size
  end

  def test_callbacks_a_process_could_not_push_are_not_pushed_by_it_once_another_did
    batch = new_batch(:complete, :success, queue: "reports")
    jid = batch.jobs { push("mail", "x") }.first
    pushed = BatchKeys.pushed(keys.tag("reports"))
    cluster.call("SET", pushed, "not a sorted set")
    assert_raises(Deckhand::CommandError) { tracker.success(batch.bid, jid) }
    cluster.call("DEL", pushed)
    # Another process (another store) takes them from the outbox once they are old.
    later = Process.clock_gettime(Process::CLOCK_REALTIME, :millisecond) + Ops::OUTBOX_AGE + 1
    other = Deckhand::Store.new({cluster: Deckhand::RedisClusterHarness.urls.reverse})
    assert_equal 2, Ops.new(other, now_ms: later, stamp: Deckhand::Payload.now).deliver_pending
    assert_equal 2, callbacks_in("reports").size
    # This process calls again long after: the queue has forgotten them, the outbox no longer holds them.
    much_later = later + Deckhand::Store::Scripts::BatchCallbacks::GRACE_MS + 1
    assert_equal 0, ops(now_ms: much_later).deliver_pending
    assert_equal [[batch.bid, "complete"], [batch.bid, "success"]], callbacks_in("reports")
  ensure
    other&.shutdown
  end

  def test_after_a_lost_reply_the_next_call_pushes_the_callbacks_it_may_have_fired
    batch = new_batch(:complete, :success)
    jid = batch.jobs { push("mail", "x") }.first
    assert_raises(Deckhand::ConnectionError) { ops(klass: ReplyLost).success(batch.bid, jid) }
    assert_equal [], callbacks_in("default")
    assert_equal 0, ops.success(batch.bid, jid), "the retry: counted before"
    assert_equal [[batch.bid, "complete"], [batch.bid, "success"]], callbacks_in("default"), "at once, not after the outbox age"
    assert_equal 0, outbox_size
  end

  def test_a_booting_server_pushes_what_a_dead_process_left_in_the_outbox
    batch = new_batch(:success)
    jid = batch.jobs { push("mail", "x") }.first
    ops(klass: CrashBeforePush).success(batch.bid, jid)
    assert_equal 1, outbox_size
    config.events.fire(:startup, config.logger)
    assert_equal [[batch.bid, "success"]], callbacks_in("default")
    assert_equal 0, outbox_size
  end

  def test_left_callbacks_taken_by_many_callers_at_once_are_pushed_once_each
    bids = Array.new(5) do |i|
      batch = new_batch(:complete, :success, queue: QUEUES[i % 3])
      jid = batch.jobs { push("mail", i) }.first
      ops(klass: CrashBeforePush).success(batch.bid, jid)
      batch.bid
    end
    assert_equal 10, outbox_size
    later = Process.clock_gettime(Process::CLOCK_REALTIME, :millisecond) + Ops::OUTBOX_AGE + 1
    Array.new(6) { Thread.new { ops(now_ms: later).deliver_pending } }.each(&:join)
    fired = QUEUES.flat_map { |queue| callbacks_in(queue) }
    assert_equal bids.flat_map { |bid| [[bid, "complete"], [bid, "success"]] }.sort, fired.sort
    assert_equal 0, outbox_size
  end

  def test_jobs_finishing_together_in_many_threads_fire_each_callback_once
    batch = new_batch(:complete, :success)
    jids = batch.jobs { 40.times { |i| push(QUEUES[i % 3], i) } }
    threads = jids.each_slice(5).map do |slice|
      Thread.new { slice.each { |jid| tracker.success(batch.bid, jid) } }
    end
    threads.each(&:join)
    assert_equal [[batch.bid, "complete"], [batch.bid, "success"]], callbacks_in("default")
    assert_equal 0, outbox_size
  end

  def test_every_operation_up_a_three_level_lineage_touches_declared_keys_only
    guarded = Deckhand::ScriptGuard.wrap(Ops)
    ops = guarded.new(config.store, now_ms: Deckhand::Payload.now, stamp: Deckhand::Payload.now)
    callbacks = ->(bid) { %w[complete success death].map { |e| JSON.generate([["#{bid}-#{e}", %({"class":"Cb","jid":"#{bid}-#{e}")]]) } }
    create = ->(bid, queue, parent) do
      ops.create(bid, parent: parent, idle_ttl_ms: 60_000, success_ttl_ms: 60_000, callback_queue: queue,
        description: bid, callbacks: callbacks.call(bid))
    end
    assert_equal "ok", create.call("grand", "reports", nil)
    assert_equal "ok", create.call("parent", "mail", "grand")
    assert_equal "ok", create.call("child", "default", "parent")
    assert_equal "ok", ops.push("child", %w[j1 j2 j3], {"mail" => ['{"jid":"j1"}'], "reports" => ['{"jid":"j2"}']},
      {"default" => [1.5, '{"jid":"j3"}']})
    %w[child parent grand].each { |bid| assert_equal "ok", ops.release(bid) }
    assert_equal 1, ops.death("child", "j1", "{}")
    %w[j2 j3].each { |jid| assert_equal 1, ops.success("child", jid) }
    %w[child-death child-complete].each { |jid| assert_equal 1, ops.success("parent", jid) }
    %w[parent-death parent-complete].each { |jid| assert_equal 1, ops.success("grand", jid) }
    assert_equal 1, ops.success("child", "j1")
    assert_equal 1, ops.success("parent", "child-success")
    assert_equal 1, ops.success("grand", "parent-success")
    assert_equal %w[grand-death grand-complete grand-success], jobs_in("reports").reverse.map { |job| job["jid"] } - ["j2"]
    assert_equal 1, cluster.call("ZCARD", keys.scheduled_set("default"))
    assert_equal 0, outbox_size
  end

  def test_every_key_of_a_batch_is_in_one_slot_and_expires
    parent = new_batch(:success)
    child = nil
    parent.jobs { (child = new_batch).jobs { push("mail", "c") } }
    names = [*BatchKeys.all(parent.bid), *BatchKeys.all(child.bid), BatchKeys::INDEX, BatchKeys::EXPIRIES,
      BatchKeys::OUTBOX, BatchKeys::OUTBOX_JOBS]
    assert_equal 1, names.map { |key| cluster.call("CLUSTER", "KEYSLOT", key) }.uniq.size
    present = names.select { |key| cluster.call("EXISTS", key) == 1 }
    assert_operator present.size, :>=, 6
    present.each { |key| assert_operator cluster.call("PTTL", key), :>, 0, "#{key} has no TTL" }
  end

  def test_a_succeeded_batch_leaves_nothing_behind_once_its_ttl_passed
    batch = new_batch(:success)
    batch.success_ttl = 0.2
    jid = batch.jobs { push("mail", 1) }.first
    tracker.success(batch.bid, jid)
    names = [*BatchKeys.all(batch.bid), BatchKeys::INDEX, BatchKeys::EXPIRIES, BatchKeys::OUTBOX, BatchKeys::OUTBOX_JOBS]
    wait_for(message: "every key of the batch to expire") { names.none? { |key| cluster.call("EXISTS", key) == 1 } }
  end

  def test_the_listing_reads_batches_newest_first
    first = new_batch
    first.description = "first"
    first.jobs { push("mail", 1) }
    second = new_batch
    second.description = "second"
    jid = second.jobs { push("reports", 2) }.first
    tracker.failure(second.bid, jobs_in("reports").first, RuntimeError.new("nope"))
    listing = Deckhand::Batch::Listing.new(config)
    assert_equal 2, listing.size
    assert_equal %w[second first], listing.page(offset: 0, limit: 10).map(&:description)
    _cursor, failures = listing.failure_page(second.bid)
    assert_equal [[jid, "nope"]], failures.map { |f| f.values_at("jid", "error_message") }
  end

  def test_a_callback_queue_that_cannot_be_a_hash_tag_is_refused_when_the_batch_is_created
    batch = Deckhand::Batch.new
    batch.callback_queue = "a{b}"
    error = assert_raises(Deckhand::ConfigError) { batch.jobs { push("mail", 1) } }
    assert_match(/cannot be used in cluster mode/, error.message)
  end
end
