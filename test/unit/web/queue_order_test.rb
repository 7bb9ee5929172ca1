# frozen_string_literal: true

require "test_helper"
require_relative "../../support/web/web_helpers"

# A queue's page in the order the jobs will run (Deckhand's), or newest
# first with direction=desc and count= jobs a page, as Sidekiq's addresses
# ask; per_page= keeps paging as before, and every link keeps the order.
class WebQueueOrderTest < Minitest::Test
  include Deckhand::WebHelpers

  def setup
    super
    (1..7).each { |n| Deckhand::Client.push("class" => "RecordJob", "args" => [n]) }
  end

  def shown(path) = get(path).body.scan(%r{<td class="args"><code>(\d+)</code>}).flatten.map(&:to_i)

  def test_newest_first_page_by_page
    assert_equal [7, 6, 5], shown("/queues/default?count=3&direction=desc")
    assert_equal [4, 3, 2], shown("/queues/default?count=3&direction=desc&page=2")
    assert_equal [1], shown("/queues/default?count=3&direction=desc&page=3")
    assert_equal [1], shown("/queues/default?count=3&direction=desc&page=9"), "a page past the end is the last"
  end

  def test_the_order_they_will_run_stays_the_default
    assert_equal [1, 2, 3], shown("/queues/default?count=3&direction=asc")
    assert_equal [1, 2, 3, 4, 5, 6, 7], shown("/queues/default")
    assert_equal [7, 6, 5, 4, 3, 2, 1], shown("/queues/default?per_page=10&direction=desc")
    assert_equal [1, 2, 3, 4, 5, 6, 7], shown("/queues/default?per_page=10&count=3"), "per_page= wins over count="
  end

  def test_links_and_forms_keep_the_order_and_the_size
    body = get("/queues/default?count=3&direction=desc").body
    assert_includes body, %(<a href="/queues/default?page=2&amp;count=3&amp;direction=desc">2</a>)
    assert_includes body, %(<input type="hidden" name="direction" value="desc">)
    jid = api.queue("default").jobs.last.jid
    response = post("/queues/default", "action" => "delete", "jid" => jid, "position" => "6", "page" => "2", "count" => "3", "direction" => "desc")
    assert_redirect response, "/queues/default?page=2&count=3&direction=desc#jobs", notice: "deleted.1"
    assert_equal [6, 5, 4], shown("/queues/default?count=3&direction=desc")
    assert_includes get("/queues/default?per_page=10&direction=desc").body, %(<input type="hidden" name="per_page" value="10">)
  end
end
