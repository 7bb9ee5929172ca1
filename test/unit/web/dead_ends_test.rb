# frozen_string_literal: true

require "test_helper"
require_relative "../../support/web/web_helpers"

# No dead ends: a job that left its set, an unknown jid and the search box
# all lead somewhere, with the navigation and a jid search on the page.
class WebDeadEndsTest < Minitest::Test
  include Deckhand::WebHelpers

  def test_every_page_has_the_jid_search
    %w[/ /busy /queues /retries /dead /metrics].each do |path|
      assert_includes get(path).body, %(<form method="get" action="/find"), path
    end
  end

  def test_a_job_that_left_its_set_gets_a_page_with_a_way_on
    response = get("/retries/1732000000.5-#{"a" * 24}")
    assert_equal 404, response.status
    assert_includes response.body, "That job has left the retry set"
    assert_includes response.body, %(<nav class="sections">)
    assert_includes response.body, %(name="jid" value="#{"a" * 24}")
  end

  def test_find_goes_to_the_job_wherever_it_waits
    add_to("dead", retry_job("d" * 24))
    add_to("schedule", retry_job("s" * 24), score: Time.now.to_f + 60)
    assert_redirect get("/find?jid=#{"d" * 24}"), "/dead/#{ERB::Util.url_encode(key_of(:dead, "d" * 24))}"
    assert_redirect get("/find?jid=#{"s" * 24}"), "/scheduled/#{ERB::Util.url_encode(key_of(:scheduled, "s" * 24))}"
    missing = get("/find?jid=%3Cb%3E#{"n" * 20}")
    assert_equal 404, missing.status
    assert_includes missing.body, "No job with jid “&lt;b&gt;#{"n" * 20}” is in the retry, scheduled or dead sets"
    assert_equal 200, get("/find").status
  end
end
