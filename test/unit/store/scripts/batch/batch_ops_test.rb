# frozen_string_literal: true

require "test_helper"
require "deckhand/batch"
require_relative "../../../../support/script_guard"

# The batch scripts (batch_*.lua) touch only keys BatchOps declared, along a batch's whole
# lineage. Plain Redis does not enforce that (a cluster does), so these tests
# run the script with a guard in front that fails any call on an undeclared key.
class BatchOpsTest < Minitest::Test
  Ops = Deckhand::Store::Scripts::BatchOps
  Lineages = Deckhand::Store::Features::BatchLineages

  GUARD = Deckhand::ScriptGuard::LUA

  # BatchOps running its script behind the guard.
  GuardedOps = Deckhand::ScriptGuard.wrap(Ops)

  def store = Deckhand.config.store

  def ops = GuardedOps.new(store, now_ms: (Time.now.to_f * 1000).round, stamp: Deckhand::Payload.now)

  def create(bid, queue, parent: nil)
    callbacks = %w[complete success death].map { |event| JSON.generate([["#{bid}-#{event}", %({"class":"Cb","jid":"#{bid}-#{event}")]]) }
    ops.create(bid, parent: parent, idle_ttl_ms: 60_000, success_ttl_ms: 60_000, callback_queue: queue,
      description: bid, callbacks: callbacks)
  end

  def callbacks_in(queue) = jobs_in(queue).map { |job| [job["jid"], job["bid"]] }

  def field(bid, name) = redis.call("HGET", Deckhand::Store::Layout::PlainBatches.batch(bid), name)

  def test_the_guard_catches_a_script_that_touches_an_undeclared_key
    error = assert_raises(Deckhand::CommandError) do
      store.call("EVAL", "#{GUARD}return redis.call('GET', 'undeclared')", 1, "declared")
    end
    assert_match(/undeclared key undeclared in GET/, error.message)
    assert_nil store.call("EVAL", "#{GUARD}return redis.call('GET', KEYS[1])", 1, "declared")
  end

  def test_every_operation_up_a_three_level_lineage_touches_declared_keys_only
    assert_equal "ok", create("grand", "cq-g")
    assert_equal "ok", create("parent", "cq-p", parent: "grand")
    assert_equal "ok", create("child", "cq-c", parent: "parent")
    assert_equal "ok", ops.push("child", %w[j1 j2 j3], {"a" => ['{"jid":"j1"}'], "b" => ['{"jid":"j2"}']}, [1.5, '{"jid":"j3"}'])
    %w[child parent grand].each { |bid| assert_equal "ok", ops.release(bid) }

    assert_equal 1, ops.death("child", "j1", "{}")
    assert_equal [["child-death", "parent"]], callbacks_in("cq-c")
    assert_equal [["parent-death", "grand"]], callbacks_in("cq-p")
    assert_equal [["grand-death", nil]], callbacks_in("cq-g")
    assert_equal 0, ops.death("child", "j1", "{}"), "told again (recovered after a crash before its dead write): counted once"
    assert_equal [["child-death", "parent"]], callbacks_in("cq-c")

    assert_equal 1, ops.success("child", "j2")
    assert_equal 1, ops.success("child", "j3")
    assert field("child", "complete_at")
    # A child's callbacks are jobs of its parent: each level completes once they ran.
    %w[child-death child-complete].each { |jid| assert_equal 1, ops.success("parent", jid) }
    %w[parent-death parent-complete].each { |jid| assert_equal 1, ops.success("grand", jid) }
    assert field("grand", "complete_at")

    assert_equal 1, ops.success("child", "j1") # the dead job, retried by hand
    assert_equal 1, ops.success("parent", "child-success")
    assert_equal 1, ops.success("grand", "parent-success")
    assert field("grand", "success_at")
    assert_equal [["grand-success", nil], ["grand-complete", nil], ["grand-death", nil]], callbacks_in("cq-g")
    assert_equal %w[j1 j2], (jobs_in("a") + jobs_in("b")).map { |job| job["jid"] }
    assert_equal 1, redis.call("ZCARD", "schedule")
  end

  def test_a_stale_lineage_is_read_again_and_nothing_changes_meanwhile
    create("parent", "cq-p")
    create("child", "cq-c", parent: "parent")
    ops.push("child", %w[j1])
    ops.release("parent")
    ops.release("child")
    Ops::LINEAGES.remember("child", [["child", "cq-c"]]) # forgot the parent
    assert_equal 1, ops.success("child", "j1")
    assert_equal [["child", "cq-c"], ["parent", "cq-p"]], Ops::LINEAGES.known("child")
    assert_equal [["child-complete", "parent"], ["child-success", "parent"]].sort, callbacks_in("cq-c").sort
    assert_equal 2, field("parent", "total").to_i
  end

  def test_lineages_are_read_up_to_the_root_and_a_missing_batch_is_not_kept
    create("grand", "cq-g")
    create("parent", "cq-p", parent: "grand")
    lineages = Lineages.new
    assert_equal [["parent", "cq-p"], ["grand", "cq-g"]], lineages.read(store, "parent")
    assert_equal [["parent", "cq-p"], ["grand", "cq-g"]], lineages.known("parent")
    assert_equal [["nosuch", nil]], lineages.fetch(store, "nosuch")
    assert_nil lineages.known("nosuch")
  end

  def test_the_script_refuses_an_undeclared_parent_before_writing
    error = assert_raises(Deckhand::CommandError) do
      ops.send(:invoke, Deckhand::Store::Scripts::BatchCreate, ["orphan"], [], ["undeclared", 60_000, 60_000, "q", "", "", "", ""])
    end
    assert_match(/batch undeclared is not declared in KEYS/, error.message)
    assert_equal [], redis.call("KEYS", "*")
  end
end
