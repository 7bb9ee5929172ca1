# frozen_string_literal: true

require "test_helper"
require_relative "../../support/web/web_helpers"

# "Did last night's cron run?" on the Periodic page: each entry's latest
# tick says what became of it (not only that it was enqueued), and its last
# ticks unfold with their outcomes; every word from Redis escaped.
class WebPeriodicHistoryTest < Minitest::Test
  include Deckhand::WebHelpers

  def store = Deckhand::RedisHarness.store

  def setup
    super
    entries = {"nightly" => {"cron" => "0 2 * * *", "timezone" => "UTC", "class" => "ReportJob", "queue" => "reports", "args" => []}}
    Deckhand::Store::Features::PeriodicState.write_schedule(store, {"leader" => "host:1:abc", "entries" => entries})
    @now = api.now.to_f
  end

  def tick(ago, record)
    due = (@now - ago).to_i
    Deckhand::Store::Scripts::PeriodicHistory.new(store).call(name: "nightly", record: {"tick" => due, "at" => @now - ago + 1}.merge(record))
    due
  end

  def last_run_cell(body) = body[%r{<td data-label="Last run" class="last-run">.*?</td>}m]

  def words(html) = html.gsub(/<[^>]+>/, " ").split.join(" ")

  def test_the_latest_tick_says_it_waits_behind_others_not_only_that_it_was_enqueued
    due = tick(60, "state" => "enqueued", "jid" => "b" * 24, "queue" => "reports")
    redis.call("HSET", "deckhand:periodic:entry:nightly", "last_tick", due, "last_jid", "b" * 24)
    cell = last_run_cell(get("/periodic").body)
    assert_includes cell, %(<div class="tick-latest"><span class="badge tick-state">enqueued</span> waiting in reports for 59)
  end

  def test_each_outcome_in_the_list_of_last_ticks
    tick(86_400 * 3, "state" => "skipped", "reason" => "paused")
    tick(86_400 * 2, "state" => "failed", "jid" => "c" * 24, "error" => "Net::ReadTimeout", "started_at" => @now - 86_400 * 2 + 1)
    tick(86_400, "state" => "succeeded", "jid" => "d" * 24, "started_at" => @now - 86_400 + 5, "at" => @now - 86_400 + 65)
    tick(120, "state" => "running", "jid" => "e" * 24, "started_at" => @now - 40)
    body = get("/periodic").body
    items = body.scan(%r{<li>.*?</li>}m).map { |li| words(li) }
    assert_equal 4, items.size
    assert_match(/\A2 min ago running for 4\d\.\d s #{"e" * 24}\z/, items[0])
    assert_equal "1 d 0 h ago succeeded in 1 min #{"d" * 24}", items[1]
    assert_equal "2 d 0 h ago failed Net::ReadTimeout, after 0.0 s #{"c" * 24} retries · dead", items[2]
    assert_includes body, %(<a href="/retries?q=#{"c" * 24}">retries</a>)
    assert_equal "3 d 0 h ago skipped paused", items[3]
    assert_includes body, %(<span class="badge bad tick-state">failed</span>)
    assert_includes body, %(<span class="badge good tick-state">succeeded</span>)
    assert_includes body, "<summary>Last 4 ticks</summary>"
  end

  def test_what_redis_holds_is_escaped
    tick(60, "state" => "failed", "jid" => "<b>jid</b>", "error" => "<script>alert(1)</script>")
    tick(30, "state" => "skipped", "reason" => "<img src=x onerror=alert(2)>")
    body = get("/periodic").body
    refute_includes body, "<script>alert(1)"
    refute_includes body, "<img src=x"
    refute_includes body, "<b>jid"
    assert_includes body, "&lt;script&gt;alert(1)&lt;/script&gt;"
  end

  def test_an_entry_without_history_reads_as_before
    body = get("/periodic").body
    refute_includes body, "tick-latest"
    refute_includes body, "<details class=\"ticks\">"
    assert_includes last_run_cell(body), "never"
  end
end
