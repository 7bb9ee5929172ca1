# frozen_string_literal: true

require "test_helper"
require_relative "../../support/web/web_helpers"

# A partitioned queue on the dashboard: one row in the list with the sum of
# its partitions, and its page lists each partition beneath.
class WebPartitionedQueueTest < Minitest::Test
  include Deckhand::WebHelpers

  def setup
    super
    Deckhand.config = new_config(partitions: {"default" => 3})
  end

  def test_the_queue_shows_once_and_its_page_lists_the_partitions
    Deckhand::Client.push_bulk("class" => "RecordJob", "args" => (1..7).to_a.zip)
    list = get("/queues").body
    assert_equal 1, list.scan(%r{href="[^"]*/queues/default"}).size, "one row for the queue"
    refute_includes list, "default~p1"
    page = get("/queues/default").body
    assert_includes page, %(<table class="partitions">)
    %w[default default~p1 default~p2].each { |name| assert_includes page, "<code>#{name}</code>" }
    assert_equal 7, page.scan("<div class=\"meta id\">").size, "every partition's jobs are listed"
    assert_includes page, %(<div class="meta">default~p2</div>), "each job names its partition"
  end
end
