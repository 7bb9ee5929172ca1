# frozen_string_literal: true

require_relative "../../support/batch/batch_helper"

# Batches that grow while they run, and batches inside batches.
class BatchNestingTest < Minitest::Test
  include Deckhand::BatchHelpers

  def test_a_job_adds_jobs_to_its_own_batch_which_succeeds_only_after_them
    config = server_config
    batch = named_batch("parent", events: %i[success])
    batch.jobs { BatchApp::Grow.perform_async("g", 3, 0) }
    with_server(config) { wait_for_callbacks(1) }
    assert_all_ran
    success = callbacks("success").first
    assert_equal [4, 4], success.values_at("total", "runs")
    assert_equal %w[g g+0 g+1 g+2], runs.sort
  end

  def test_a_job_opens_a_child_batch_and_the_parent_succeeds_after_the_child_and_its_callback
    config = server_config
    parent = named_batch("parent", events: %i[success])
    parent.jobs { BatchApp::Grow.perform_async("g", 1, 2) }
    with_server(config) { wait_for_callbacks(2) }
    assert_all_ran
    assert_equal ["g/child", "parent"], callbacks.map { |c| c["options"]["name"] }
    child_bid = callbacks.first["bid"]
    # Grow, the job it added, and the child's success callback.
    assert_equal [3, 4], callbacks.last.values_at("total", "runs")
    assert_equal [child_bid], parent.status.child_bids
    child = Deckhand::Batch::Status.new(child_bid)
    assert_equal [parent.bid, "child of g", 2], [child.parent_bid, child.description, child.total]
  end

  def test_a_batch_opened_inside_another_s_block_is_its_child_written_together
    parent = named_batch("parent")
    child = nil
    parent.jobs do
      BatchApp::Work.perform_async("p")
      child = named_batch("child")
      child.jobs { BatchApp::Work.perform_async("c") }
      assert_equal 0, redis.call("LLEN", "queue:default"), "the child's jobs went out before the parent's block returned"
    end
    assert_equal parent.bid, child.parent_bid
    assert_equal parent.bid, child.status.parent_bid
    assert_equal [child.bid], parent.status.child_bids
    assert_equal [[parent.bid, "p"], [child.bid, "c"]].sort, jobs_in("default").map { |j| [j["bid"], j["args"].first] }.sort
  end

  def test_an_exception_in_the_parent_block_drops_the_child_too
    parent = named_batch("parent")
    assert_raises(KeyError) do
      parent.jobs do
        BatchApp::Work.perform_async("p")
        named_batch("child").jobs { BatchApp::Work.perform_async("c") }
        {}.fetch(:missing)
      end
    end
    assert_equal [], redis.call("KEYS", "*")
  end

  def test_a_parent_waits_for_a_failing_child_and_succeeds_after_it
    config = server_config
    parent = named_batch("parent")
    parent.jobs do
      BatchApp::Work.perform_async("p")
      named_batch("child").jobs { BatchApp::Flaky.perform_async("cf") }
    end
    with_server(config) do
      wait_for(message: "the child's job to fail twice") { redis.call("LLEN", "app:attempts") >= 2 }
      wait_for_callbacks(2) # both complete: every job ran once
      assert_empty callbacks("success")
      refute parent.status.success?
      redis.call("SET", "app:fixed:cf", "1")
      wait_for_callbacks(2, event: "success")
    end
    assert_all_ran
    names = callbacks.map { |c| "#{c["options"]["name"]}:#{c["event"]}" }
    assert_equal "parent:success", names.last
    assert_operator names.index("child:complete"), :<, names.index("parent:complete")
    assert_operator names.index("child:success"), :<, names.index("parent:success")
  end

  def test_a_death_in_a_child_fires_the_child_s_and_the_parent_s_death_once
    parent = named_batch("parent", events: %i[death])
    child = nil
    jids = nil
    parent.jobs do
      child = named_batch("child", events: %i[death])
      jids = child.jobs { 2.times { BatchApp::Work.perform_async("c") } }
    end
    redis.call("DEL", "queue:default")
    tracker = Deckhand::Batch::Tracker.new(Deckhand.config)
    jids.each { |jid| tracker.death({"bid" => child.bid, "jid" => jid}, RuntimeError.new("gone")) }
    deaths = jobs_in("default").reverse.map { |job| [job["args"][3]["name"], job["bid"]] }
    assert_equal [["child", parent.bid], ["parent", nil]], deaths
    assert parent.status.death?
    assert_equal 1, parent.status.pending, "the child's death callback is a job of the parent"
  end

  private

  def named_batch(name, events: %i[success complete])
    batch = Deckhand::Batch.new
    events.each { |event| batch.on(event, BatchApp::Callbacks, "name" => name) }
    batch
  end
end
