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
    assert_includes missing.body, "no job with an argument “&lt;b&gt;#{"n" * 20}” in the first 10,000 entries of each set and the next 10,000 jobs of each queue"
    assert_equal 200, get("/find").status
  end

  def test_find_lists_a_job_waiting_in_a_queue_by_its_jid
    redis.call("LPUSH", "queue:mailers", JSON.generate(retry_job("q" * 24, "args" => [1], "queue" => "mailers")))
    redis.call("SADD", "queues", "mailers")
    response = get("/find?jid=#{"q" * 24}")
    assert_equal 200, response.status
    rows = response.body.scan(%r{<tr>.*?</tr>}m).drop(1)
    assert_equal 1, rows.size, response.body
    assert_includes rows[0], %(href="/queues/mailers?page=1#jobs")
    assert_includes rows[0], "q" * 24
  end

  def test_find_lists_the_jobs_with_an_argument_wherever_they_wait_with_links
    add_to("retry", retry_job("r" * 24, "args" => [98431]))
    add_to("dead", retry_job("d" * 24, "args" => [{"customer" => "98431"}]))
    redis.call("LPUSH", "queue:mailers", JSON.generate(retry_job("m" * 24, "args" => ["98431"], "queue" => "mailers")))
    redis.call("LPUSH", "queue:mailers", JSON.generate(retry_job("x" * 24, "args" => ["other"], "queue" => "mailers")))
    redis.call("SADD", "queues", "mailers")
    response = get("/find?jid=98431")
    assert_equal 200, response.status
    rows = response.body.scan(%r{<tr>.*?</tr>}m).drop(1)
    assert_equal 3, rows.size, response.body
    assert_includes rows[0], %(href="/retries/#{ERB::Util.url_encode(key_of(:retries, "r" * 24))}")
    assert_includes rows[1], %(href="/dead/#{ERB::Util.url_encode(key_of(:dead, "d" * 24))}")
    assert_includes rows[2], %(href="/queues/mailers?page=1#jobs")
    assert_includes rows[2], "Queue mailers"
    assert_includes response.body, "Searched the first 10,000 entries of each set and the next 10,000 jobs of each queue (the first 100 queues by name), stopping at 50 jobs."
    refute_includes response.body, "x" * 24
  end
end
