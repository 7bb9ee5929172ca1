# frozen_string_literal: true

require "test_helper"
require_relative "../../support/web/web_helpers"

# With a filter, "all" means all matches: counted in Redis, confirmed with
# their number, and nothing else is touched. Every action returns to the
# page, filter and stretch it was started from, with a notice shown once.
class WebFilteredBulkTest < Minitest::Test
  include Deckhand::WebHelpers

  def seed_retries(matching: 5, others: 30)
    now = Time.now.to_f
    others.times { |i| add_to("retry", retry_job(format("o%023d", i)), score: now + i) }
    matching.times do |i|
      add_to("retry", retry_job(format("m%023d", i), "error_class" => "Net::ReadTimeout", "error_message" => "slow"), score: now + 100 + (i * 7))
    end
  end

  def test_a_filtered_list_offers_all_matches_not_the_whole_set
    seed_retries
    body = get("/retries?q=Net::ReadTimeout").body
    refute_includes body, %(name="all"), "no form that acts on the whole set"
    assert_includes body, %(href="/retries?q=Net%3A%3AReadTimeout&amp;confirm=delete")
    assert_includes body, "Delete: all matches…"
  end

  def test_the_confirmation_counts_the_matches_in_the_whole_set
    seed_retries(matching: 3, others: 1200)
    body = get("/retries?q=Net::ReadTimeout&confirm=delete").body
    assert_includes body, "delete for good 3 jobs</strong>: those of the 1,203 in retries that contain “Net::ReadTimeout”"
    assert_includes body, %(<input type="hidden" name="count" value="3">)
    assert_includes body, %(<input type="hidden" name="q" value="Net::ReadTimeout">)
    assert_equal 3, body.scan(%(<div class="meta">m0)).size, "the matches are listed"
  end

  def test_a_filtered_delete_all_deletes_only_the_matches
    seed_retries
    response = post("/retries", "action" => "delete", "all" => "1", "q" => "Net::ReadTimeout", "count" => "5")
    assert_redirect response, "/retries?q=Net%3A%3AReadTimeout#entries", notice: "deleted.5"
    left = redis.call("ZRANGE", "retry", 0, -1)
    assert_equal 30, left.size
    assert(left.none? { |raw| raw.include?("Net::ReadTimeout") })
    assert_includes follow(response).body, "5 jobs deleted"
  end

  def test_filtered_retry_and_kill_all_act_only_on_the_matches
    seed_retries(matching: 600, others: 700) # more than one batch of 500
    assert_redirect post("/retries", "action" => "kill", "all" => "1", "q" => "ReadTimeout", "count" => "600"),
      "/retries?q=ReadTimeout#entries", notice: "killed.600"
    assert_equal 700, redis.call("ZCARD", "retry")
    assert_equal 600, redis.call("ZCARD", "dead")
    assert_redirect post("/dead", "action" => "retry", "all" => "1", "q" => "m000", "count" => "600"), "/dead?q=m000#entries", notice: "retried.600"
    assert_equal 0, redis.call("ZCARD", "dead")
    assert_equal 600, redis.call("LLEN", "queue:default")
    assert(redis.call("LRANGE", "queue:default", 0, -1).all? { |raw| raw.include?("Net::ReadTimeout") })
  end

  def test_nothing_is_done_when_more_match_than_confirmed
    seed_retries
    response = post("/retries", "action" => "delete", "all" => "1", "q" => "Net::ReadTimeout", "count" => "4")
    assert_redirect response, "/retries?q=Net%3A%3AReadTimeout&confirm=delete", notice: "changed.0"
    assert_equal 35, redis.call("ZCARD", "retry")
    assert_includes follow(response).body, "More entries match now than you confirmed: nothing was done"
  end

  def test_an_action_returns_to_page_3_of_a_list
    seed_retries(matching: 0, others: 30)
    key = api.retries.page(3, 10).first.key
    response = post("/retries/#{ERB::Util.url_encode(key)}", "action" => "delete", "page" => "3", "per_page" => "10")
    assert_redirect response, "/retries?page=3&per_page=10#entries", notice: "deleted.1"
    page = follow(response).body
    assert_includes page, %(<span class="here" aria-current="page">3</span>)
    assert_includes page, "1 job deleted"
  end

  def test_an_action_returns_to_the_same_stretch_of_a_filtered_list
    seed_retries(matching: 40, others: 30)
    page = get("/retries?q=ReadTimeout&from=35&per_page=10").body
    assert_includes page, %(<input type="hidden" name="q" value="ReadTimeout">)
    assert_includes page, %(<input type="hidden" name="from" value="35">)
    assert_match(%r{href="/retries\?q=ReadTimeout&amp;from=\d+&amp;per_page=10" id="search-further"}, page, "searching further keeps the page size")
    key = api.retries.filter("ReadTimeout", from: 35, limit: 1).first.first.key
    response = post("/retries/#{ERB::Util.url_encode(key)}", "action" => "retry", "q" => "ReadTimeout", "from" => "35", "per_page" => "10")
    assert_redirect response, "/retries?q=ReadTimeout&from=35&per_page=10#entries", notice: "retried.1"
    checked = [api.retries.filter("ReadTimeout", from: 35, limit: 2).first.map(&:key)].flatten
    response = post("/retries", "action" => "delete", "keys" => checked, "q" => "ReadTimeout", "from" => "35", "per_page" => "10")
    assert_redirect response, "/retries?q=ReadTimeout&from=35&per_page=10#entries", notice: "deleted.2"
    assert_equal 67, redis.call("ZCARD", "retry")
  end

  def test_the_notice_is_shown_once
    add_to("retry", retry_job("a" * 24))
    response = post("/retries/#{ERB::Util.url_encode(key_of(:retries, "a" * 24))}", "action" => "delete")
    shown = follow(response)
    assert_includes shown.body, "1 job deleted"
    assert_includes Array(shown.headers["set-cookie"]).join("\n"), "deckhand_notice=; path=/; Max-Age=0"
    refute_includes get("/retries").body, "1 job deleted", "a reload (no cookie) shows no notice"
    refute_includes get("/retries", headers: {"HTTP_COOKIE" => "deckhand_notice=<script>.1"}).body, "<script>"
  end

  def test_checked_and_row_deletes_ask_first
    seed_retries(matching: 1, others: 1)
    body = get("/retries").body
    assert_includes body, %(data-needs-checked="keys[]" data-none-checked="Check the entries to act on first." data-confirm="Delete: the %{checked} checked retries entries?")
    assert_match(/value="delete" formaction="[^"]+" class="danger" data-confirm="Delete RecordJob m0{22}0\?"/, body)
  end
end
