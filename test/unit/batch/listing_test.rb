# frozen_string_literal: true

require_relative "../../support/batch/batch_helper"

# The read API dashboards use: pages of batches, one batch, its failures.
class BatchListingTest < Minitest::Test
  include Deckhand::BatchHelpers

  def setup
    super
    @listing = Deckhand::Batch::Listing.new(Deckhand.config)
  end

  def test_pages_list_batches_newest_first
    bids = Array.new(5) do |n|
      batch = Deckhand::Batch.new
      batch.description = "import #{n}"
      batch.jobs { BatchApp::Work.perform_async(n.to_s) }
      created_ms = (batch.status.created_at.to_f * 1000).round # to_f * 1000 may land a hair below the millisecond
      wait_for(message: "a new millisecond") { ::Process.clock_gettime(::Process::CLOCK_REALTIME, :millisecond) > created_ms }
      batch.bid
    end
    assert_equal 5, @listing.size
    assert_equal bids.last(2).reverse, @listing.page(offset: 0, limit: 2).map(&:bid)
    assert_equal bids.reverse[2, 2], @listing.page(offset: 2, limit: 2).map(&:bid)
    assert_equal [bids.first], @listing.page(offset: 4, limit: 2).map(&:bid)
    assert_equal [], @listing.page(offset: 0, limit: 0)
    assert_equal "import 4", @listing.page(limit: 1).first.description
  end

  def test_status_and_failures_of_one_batch
    batch = Deckhand::Batch.new
    jids = batch.jobs { 3.times { |i| BatchApp::Work.perform_async(i.to_s) } }
    tracker = Deckhand::Batch::Tracker.new(Deckhand.config)
    tracker.success(batch.bid, jids[0])
    tracker.failure(batch.bid, {"jid" => jids[1], "class" => "BatchApp::Work", "retry_count" => 2}, ArgumentError.new("bad row 7"))
    tracker.death({"bid" => batch.bid, "jid" => jids[2], "class" => "BatchApp::Work"}, KeyError.new("gone"))
    status = @listing.status(batch.bid)
    assert_equal({"bid" => batch.bid, "description" => nil, "total" => 3, "pending" => 2, "failures" => 2, "dead" => 1,
                  "complete" => true, "success" => false, "parent_bid" => nil, "child_bids" => []},
      status.to_h.except("created_at", "complete_at", "success_at"))
    failures = @listing.failures(batch.bid).sort_by { |f| f["error_class"] }
    assert_equal [["ArgumentError", "bad row 7", jids[1], false, 2], ["KeyError", "gone", jids[2], true, nil]],
      failures.map { |f| f.values_at("error_class", "error_message", "jid", "dead", "retry_count") }
    assert_kind_of Time, failures.first["failed_at"]
    assert_nil @listing.status("nosuchbatch")
    assert_equal [], @listing.failures("nosuchbatch")
  end

  # Summaries count; the jids and errors are read only when asked for.
  def test_summaries_read_counts_and_the_rest_on_demand
    parent = Deckhand::Batch.new
    parent.on(:complete, BatchApp::Callbacks, "import_id" => 7)
    jids = parent.jobs do
      3.times { |i| BatchApp::Work.perform_async(i.to_s) }
      2.times { Deckhand::Batch.new.jobs { BatchApp::Work.perform_async("kid") } }
    end
    tracker = Deckhand::Batch::Tracker.new(Deckhand.config)
    tracker.failure(parent.bid, {"jid" => jids[0], "class" => "BatchApp::Work"}, ArgumentError.new("bad"))
    tracker.death({"bid" => parent.bid, "jid" => jids[1], "class" => "BatchApp::Work"}, KeyError.new("gone"))
    summary = @listing.status(parent.bid, summary: true)
    full = @listing.status(parent.bid)
    assert_equal [2, 1, 2], [summary.failures, summary.dead_count, summary.child_count]
    assert_equal [2, 1, 2], [full.failures, full.dead_count, full.child_count]
    assert_equal full.to_h, summary.to_h
    assert_equal [["complete", "BatchApp::Callbacks", {"import_id" => 7}, "default", nil]],
      summary.callbacks.map { |c| c.values_at("event", "class", "options", "queue", "fired_at") }
    assert_kind_of Time, summary.death_at
    assert_equal [jids[1]], summary.dead_jids
    assert_equal full.child_bids.sort, @listing.children(parent.bid).map(&:bid).sort
    listed = @listing.page(limit: 5).find { |status| status.bid == parent.bid }
    assert_equal [3, 2, 1, 2], [listed.total, listed.failures, listed.dead_count, listed.child_count]
  end

  def test_failure_pages_walk_every_failure_a_stretch_at_a_time
    batch = Deckhand::Batch.new
    jids = batch.jobs { 200.times { |i| BatchApp::Work.perform_async(i.to_s) } }
    tracker = Deckhand::Batch::Tracker.new(Deckhand.config)
    jids.first(150).each { |jid| tracker.failure(batch.bid, {"jid" => jid, "class" => "BatchApp::Work"}, ArgumentError.new("row #{jid}")) }
    jids.first(5).each { |jid| tracker.death({"bid" => batch.bid, "jid" => jid, "class" => "BatchApp::Work"}, KeyError.new("gone")) }
    seen = []
    cursor = 0
    stretches = 0
    loop do
      cursor, failures = @listing.failure_page(batch.bid, cursor: cursor, count: 20)
      stretches += 1
      assert_operator failures.size, :<=, 40
      seen.concat(failures)
      break unless cursor
    end
    assert_operator stretches, :>, 3
    by_jid = seen.to_h { |failure| [failure["jid"], failure] }
    assert_equal jids.first(150).sort, by_jid.keys.sort
    assert_equal jids.first(5).sort, by_jid.values.select { |failure| failure["dead"] }.map { |failure| failure["jid"] }.sort
    assert_equal "row #{jids[100]}", by_jid[jids[100]]["error_message"]
    assert_kind_of Time, by_jid[jids[100]]["failed_at"]
    assert_equal [nil, []], @listing.failure_page("nosuchbatch")
  end
end
