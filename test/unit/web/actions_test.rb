# frozen_string_literal: true

require "test_helper"
require_relative "../../support/web/web_helpers"

class WebActionsTest < Minitest::Test
  include Deckhand::WebHelpers

  def test_queue_pause_resume_clear
    Deckhand::Client.push("class" => "RecordJob", "args" => [1], "queue" => "mail")
    assert_redirect post("/queues/mail", "action" => "pause"), "/queues/mail", notice: "paused.0"
    assert_equal ["mail"], redis.call("SMEMBERS", "deckhand:paused")
    assert_includes get("/queues").body, "paused"
    assert_redirect post("/queues/mail", "action" => "resume"), "/queues/mail", notice: "resumed.0"
    assert_empty redis.call("SMEMBERS", "deckhand:paused")
    response = post("/queues/mail", "action" => "clear")
    assert_redirect response, "/queues", notice: "cleared.0"
    assert_equal 0, redis.call("EXISTS", "queue:mail")
    assert_includes follow(response).body, "Queue cleared"
  end

  def test_queue_delete_one_job
    jids = Deckhand::Client.push_bulk("class" => "RecordJob", "args" => [[1], [2], [3]])
    response = post("/queues/default", "action" => "delete", "jid" => jids[1], "position" => "1", "page" => "1")
    assert_redirect response, "/queues/default#jobs", notice: "deleted.1"
    assert_equal [jids[0], jids[2]], jobs_in("default").reverse.map { |j| j["jid"] }
    assert_redirect post("/queues/default", "action" => "delete", "jid" => jids[1], "position" => "1"), "/queues/default", notice: "gone.0"
  end

  # A listing's page is the one asked for, within the pages there are:
  # past the last, the last; none or nonsense, the first.
  def test_a_listing_shows_the_page_asked_for_within_its_pages
    12.times { |i| add_to("retry", retry_job(format("%024d", i)), score: Time.now.to_f + i) }
    here = ->(body) { body[%r{<span class="here" aria-current="page">(\d+)</span>}, 1] }
    last = get("/retries?page=9&per_page=10").body
    assert_equal "2", here.call(last)
    assert_equal 2, last.scan('name="keys[]"').size, "the last page's two entries"
    assert_equal "1", here.call(get("/retries?page=zero&per_page=10").body)
    assert_nil here.call(get("/retries?page=2").body), "25 a page: one page, no pager"
  end

  def test_unknown_actions_change_nothing
    Deckhand::Client.push("class" => "RecordJob", "args" => [1])
    assert_equal 404, post("/queues/default", "action" => "drop").status
    assert_equal 404, post("/dead", "action" => "kill", "all" => "1").status, "the dead cannot be killed"
    assert_equal 404, post("/busy", "signal" => "KILL", "identity" => "all").status
    assert_equal 1, redis.call("LLEN", "queue:default")
  end

  def test_retry_one_entry_sends_it_to_its_queue
    add_to("retry", retry_job("a" * 24))
    response = post("/retries/#{key_of(:retries, "a" * 24)}", "action" => "retry")
    assert_redirect response, "/retries#entries", notice: "retried.1"
    assert_equal ["a" * 24], jobs_in("default").map { |j| j["jid"] }
    assert_equal 0, redis.call("ZCARD", "retry")
    assert_includes follow(response).body, "1 job sent to its queue<"
  end

  def test_acting_on_an_entry_that_left_says_so
    add_to("dead", retry_job("a" * 24))
    key = key_of(:dead, "a" * 24)
    redis.call("DEL", "dead")
    assert_redirect post("/dead/#{key}", "action" => "retry"), "/dead#entries", notice: "gone.0"
  end

  def test_delete_and_kill_one_entry
    add_to("schedule", retry_job("s" * 24), score: Time.now.to_f + 600)
    add_to("retry", retry_job("r" * 24))
    assert_redirect post("/scheduled/#{key_of(:scheduled, "s" * 24)}", "action" => "delete"), "/scheduled#entries", notice: "deleted.1"
    assert_equal 0, redis.call("ZCARD", "schedule")
    assert_redirect post("/retries/#{key_of(:retries, "r" * 24)}", "action" => "kill"), "/retries#entries", notice: "killed.1"
    assert_equal ["r" * 24], api.dead.page(1, 5).map(&:jid)
  end

  def test_bulk_actions_on_checked_entries
    %w[a b c].each { |c| add_to("dead", retry_job(c * 24)) }
    keys = [key_of(:dead, "a" * 24), key_of(:dead, "c" * 24), "9.9-#{"z" * 24}"]
    assert_redirect post("/dead", "action" => "retry", "keys" => keys), "/dead#entries", notice: "retried.2"
    assert_equal ["b" * 24], api.dead.page(1, 5).map(&:jid)
    assert_equal 2, redis.call("LLEN", "queue:default")
    assert_redirect post("/dead", "action" => "delete", "keys" => [key_of(:dead, "b" * 24)]), "/dead#entries", notice: "deleted.1"
    assert_equal 0, redis.call("ZCARD", "dead")
  end

  def test_bulk_actions_on_the_whole_set
    30.times { |i| add_to("retry", retry_job(format("%024d", i))) }
    assert_redirect post("/retries", "action" => "kill", "all" => "1"), "/retries#entries", notice: "killed.30"
    assert_equal 30, redis.call("ZCARD", "dead")
    assert_redirect post("/dead", "action" => "retry", "all" => "1"), "/dead#entries", notice: "retried.30"
    assert_equal 30, redis.call("LLEN", "queue:default")
    5.times { |i| add_to("schedule", retry_job(format("%024d", i))) }
    assert_redirect post("/scheduled", "action" => "delete", "all" => "1"), "/scheduled#entries", notice: "deleted.5"
    assert_equal 0, redis.call("ZCARD", "schedule")
  end

  def test_quiet_and_stop_one_process_or_all
    %w[h:1:a h:2:b].each do |identity|
      redis.call("SADD", "processes", identity)
      redis.call("HSET", identity, "info", "{}", "busy", "0", "beat", Time.now.to_f.to_s)
    end
    assert_redirect post("/busy", "signal" => "quiet", "identity" => "h:1:a"), "/busy", notice: "quieted.0"
    assert_equal ["TSTP"], redis.call("LRANGE", "h:1:a-signals", 0, -1)
    assert_equal [], redis.call("LRANGE", "h:2:b-signals", 0, -1)
    assert_redirect post("/busy", "signal" => "stop", "identity" => "all"), "/busy", notice: "stopped.0"
    assert_equal %w[TERM TSTP], redis.call("LRANGE", "h:1:a-signals", 0, -1)
    assert_equal ["TERM"], redis.call("LRANGE", "h:2:b-signals", 0, -1)
    assert_operator redis.call("TTL", "h:2:b-signals"), :>, 0
  end

  def test_quiet_reaches_a_real_server
    Deckhand.config = new_config(heartbeat_interval: 0.1)
    with_server do |launcher|
      wait_for { api.processes.find(launcher.identity) }
      post("/busy", "signal" => "quiet", "identity" => launcher.identity)
      wait_for(message: "TSTP delivered") { @signals_received&.include?("TSTP") }
    end
  end
end
