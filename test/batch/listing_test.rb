# frozen_string_literal: true

require_relative "batch_helper"

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
      wait_for(message: "a new millisecond") { ::Process.clock_gettime(::Process::CLOCK_REALTIME, :millisecond) > batch.status.created_at.to_f * 1000 }
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
end
