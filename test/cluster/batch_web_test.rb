# frozen_string_literal: true

require "test_helper"
require "deckhand/batch"
require_relative "../support/cluster_helpers"
require_relative "../support/cluster_batch_helpers"
require_relative "../support/web/web_helpers"

# The dashboard's Batches pages in cluster mode, through Rack.
class ClusterBatchWebTest < Minitest::Test
  include Deckhand::ClusterHelpers
  include Deckhand::ClusterBatchHelpers
  include Deckhand::WebHelpers

  def test_the_batches_pages_list_and_show_a_batch_with_its_child_and_failures
    parent = Deckhand::Batch.new
    parent.description = "import in cluster mode"
    parent.on(:success, "ClusterBatchCallbacks")
    child = nil
    jids = parent.jobs do
      %w[default mail reports].each { |queue| Deckhand::Client.push("class" => "RecordJob", "args" => [queue], "queue" => queue) }
      child = Deckhand::Batch.new
      child.description = "child part"
      child.jobs do
        Deckhand::Client.push("class" => "RecordJob", "args" => ["c"], "queue" => "mail")
        Deckhand::Client.push("class" => "RecordJob", "args" => ["later"], "queue" => "reports", "at" => Time.now.to_f + 600)
      end
    end
    tracker.success(parent.bid, jids[0])
    tracker.failure(parent.bid, {"jid" => jids[1], "class" => "RecordJob", "retry_count" => 1}, IOError.new("timed out"))

    list = get("/batches")
    assert_equal 200, list.status, list.body
    assert_includes list.body, "import in cluster mode"
    assert_includes list.body, "child part"
    assert_includes list.body, "1 of 3 succeeded, 1 failing"
    assert_includes list.body, %(data-live-stat="scheduled">1<), "the header counts the scheduled sets' shards"

    page = get("/batches/#{parent.bid}")
    assert_equal 200, page.status, page.body
    assert_includes page.body, "timed out"
    assert_includes page.body, "ClusterBatchCallbacks"
    assert_includes page.body, child.bid
  end
end
