# frozen_string_literal: true

require "test_helper"
require "deckhand/api"
require "erb"
require_relative "browser_harness"

# The dashboard at 3 a.m., in headless Chromium against `deckhand web`: a
# filtered "delete all" deletes only the matches, actions keep the user's
# place, the header and the live pages update without a reload, the grouped
# view matches the set. Screenshots at desktop and phone width land in
# tmp/screenshots/.
class TriageBrowserTest < Minitest::Test
  include Deckhand::BrowserHarness

  def teardown
    close_page
    super
  end

  def api = Deckhand::API.new(Deckhand.config)

  def failed(jid, error: "RuntimeError", klass: "ReportJob", args: [jid])
    {"class" => klass, "args" => args, "jid" => jid, "queue" => "default", "retry" => true, "retry_count" => 2,
     "error_class" => error, "error_message" => "#{error} on purpose", "failed_at" => Deckhand::Payload.now,
     "created_at" => Deckhand::Payload.now,
     "error_backtrace" => Deckhand::Payload::Backtrace.compress(["app/jobs/report_job.rb:12:in `perform'", "lib/deckhand/server/run/job_runner.rb:60"])}
  end

  # 25 timeouts among 40 other failures, a few dead, a queue with long arguments.
  def seed
    now = Time.now.to_f
    40.times { |i| redis.call("ZADD", "retry", now + (60 * i), JSON.generate(failed(format("o%023d", i)))) }
    25.times do |i|
      redis.call("ZADD", "retry", now + 30 + (60 * i), JSON.generate(failed(format("t%023d", i), error: "Net::ReadTimeout", klass: "MailJob")))
    end
    5.times { |i| redis.call("ZADD", "dead", now - i, JSON.generate(failed(format("d%023d", i), args: ["x" * 3000]))) }
    Deckhand::Client.push_bulk("class" => "RecordJob", "args" => (1..30).map { |i| [i, "y" * (i * 10)] }, "queue" => "mailers")
  end

  def notice = page.at_css(".notice")&.text.to_s

  def test_a_filtered_delete_all_deletes_only_the_matches
    seed
    visit("/retries?q=Net::ReadTimeout")
    assert_includes page.at_css("#filter-total").text, "25 matches in the whole set"
    screenshot("retries-filtered")
    page.at_css(%(a.button[href*="confirm=delete"])).scroll_into_view.click
    wait_for(message: "the confirmation page") { page.at_css("#confirm-count") }
    assert_includes page.at_css("#confirm-count").text, "delete for good 25 jobs: those of the 65 in retries"
    screenshot("retries-confirm")
    page.at_css("#confirm-all").scroll_into_view.click
    wait_for(message: "back on the filtered list") { notice.include?("25 jobs deleted") }
    assert_includes page.current_url, "q=Net%3A%3AReadTimeout"
    assert_equal 40, api.retries.size
    assert_equal 0, api.retries.count_matching("Net::ReadTimeout")
    page.refresh
    assert_nil page.at_css(".notice"), "a reload does not repeat the notice"
    assert_no_browser_problems
  end

  def test_an_action_returns_to_page_3_of_a_filtered_list
    seed
    visit("/retries?q=RuntimeError&per_page=10")
    2.times do |n| # the filter works a stretch at a time: on to the third
      before = page.current_url
      page.at_css("#search-further").scroll_into_view.click
      wait_for(message: "stretch #{n + 2}") { page.current_url != before }
    end
    third = page.current_url[%r{/retries\?.*}]
    assert_includes third, "per_page=10"
    first_row = page.at_css(%(input[name="keys[]"])).value
    page.at_css(%(button[value="delete"][formaction$="#{ERB::Util.url_encode(first_row)}"])).click # asks first; the harness says OK
    wait_for(message: "the notice") { notice.include?("1 job deleted") }
    assert_equal third, page.current_url[%r{/retries\?[^#]*}], "back on the third stretch of the filtered list"
    visit("/retries?per_page=10&page=3")
    row_key = api.retries.page(3, 10).first.key
    page.at_css(%(button[value="retry"][formaction$="#{ERB::Util.url_encode(row_key)}"])).click
    wait_for(message: "the notice") { notice.include?("1 job sent to its queue") }
    assert_includes page.current_url, "page=3"
    assert_equal "3", page.at_css(".pager .here").text
    visit("/retries?q=o000&per_page=10")
    keys = page.css(%(input[name="keys[]"])).first(2)
    keys.each(&:click)
    page.at_css(%(#bulk button[value="delete"])).click # asks "the 2 checked"; the harness says OK
    wait_for(message: "bulk delete") { notice.include?("2 jobs deleted") }
    assert_includes page.current_url, "q=o000"
    assert_includes page.current_url, "per_page=10"
    assert_no_browser_problems
  end

  def test_the_header_and_live_pages_update_without_a_reload
    seed
    visit("/busy?interval=1")
    assert_equal "65", page.at_css(%([data-live-stat="retries"])).text
    redis.call("ZADD", "retry", Time.now.to_f, JSON.generate(failed("n" * 24)))
    wait_for(message: "the header to count the new retry") { page.at_css(%([data-live-stat="retries"])).text == "66" }
    visit("/dead?interval=1")
    page.at_css("[data-live-toggle]").click
    redis.call("ZADD", "dead", Time.now.to_f + 10, JSON.generate(failed("z" * 24, error: "FreshError")))
    wait_for(message: "the list to show the new dead job") { page.body.include?("FreshError") }
    assert page.evaluate("document.querySelector('[data-live-toggle]').checked"), "the toggle stays on"
    assert_no_browser_problems
  end

  def test_the_grouped_view_matches_the_set
    seed
    visit("/retries?view=groups")
    rows = page.css("#by-error tbody tr").map { |row| row.css("td").first(2).map(&:text) }
    assert_equal [["RuntimeError", "40"], ["Net::ReadTimeout", "25"]], rows
    classes = page.css("#by-class tbody tr").map { |row| row.css("td").first(2).map(&:text) }
    assert_equal [["ReportJob", "40"], ["MailJob", "25"]], classes
    screenshot("retries-grouped")
    page.at_css("#by-error a").scroll_into_view.click
    wait_for(message: "the group's entries") { page.at_css("#filter-total") }
    assert_includes page.at_css("#filter-total").text, "40 matches"
    assert_no_browser_problems
  end

  def test_every_page_at_desktop_and_phone_width
    seed
    # Limits and Periodic with a line each, so their tables are measured too.
    Deckhand::Store::Features::Throttles.set(Deckhand.config.store, "mailers", {"rate" => 20, "per" => 1, "concurrency" => 3})
    entries = {"nightly" => {"cron" => "0 2 * * *", "timezone" => "Europe/Paris", "class" => "RecordJob", "queue" => "reports", "args" => ["daily"]}}
    Deckhand::Store::Features::PeriodicState.write_schedule(Deckhand.config.store, {"leader" => "host:1:abc", "entries" => entries})
    dead_key = ERB::Util.url_encode(api.dead.page(1, 1).first.key)
    pages = {
      "retries" => "/retries", "retries-grouped" => "/retries?view=groups", "retries-filtered" => "/retries?q=Net::ReadTimeout",
      "retries-confirm" => "/retries?q=Net::ReadTimeout&confirm=delete", "dead-detail" => "/dead/#{dead_key}",
      "queue-long-args" => "/queues/mailers?page=2&per_page=10", "busy" => "/busy", "gone" => "/retries/1.5-#{"a" * 24}",
      "metrics" => "/metrics", "dashboard" => "/", "queues" => "/queues", "scheduled" => "/scheduled", "dead" => "/dead",
      "dead-grouped" => "/dead?view=groups", "batches" => "/batches", "find" => "/find", "limits" => "/limits", "periodic" => "/periodic"
    }
    visit("/")
    [["desktop", 1280, 900, false], ["phone", 390, 844, true]].each do |label, width, height, mobile|
      page.set_viewport(width: width, height: height, scale_factor: 1, mobile: mobile)
      pages.each do |name, path|
        page.go_to("#{Deckhand::BrowserHarness.url}#{path}")
        overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
        assert_operator overflow, :<=, 0, "#{path} scrolls sideways at #{width} px"
        assert page.at_css("table.throttles tbody tr"), "the throttle's line on /limits" if name == "limits"
        assert page.at_css("td.next-run"), "the entry's line on /periodic" if name == "periodic"
        screenshot("#{name}-#{label}")
        @problems.clear if name == "gone" # its 404 is the point; nothing else may fail
      end
    end
    page.go_to("#{Deckhand::BrowserHarness.url}/retries")
    error_cell = page.evaluate("document.querySelector('td.error-cell').getBoundingClientRect().right <= window.innerWidth")
    button = page.evaluate("document.querySelector('td.row-actions button').getBoundingClientRect().right <= window.innerWidth")
    assert error_cell, "the error is in view on a phone"
    assert button, "the row's buttons are in view on a phone"
    assert_no_browser_problems
  end

  def test_the_history_axis_fits_the_tallest_day
    redis.call("SET", "stat:processed:#{Time.now.utc.strftime("%Y-%m-%d")}", 21_000)
    visit("/?days=7")
    labels = page.css("#history-chart text.axis").map(&:text)
    assert_includes labels, "25k", "21k jobs get an axis to 25k"
    refute_includes labels, "50k"
    assert_no_browser_problems
  end

  def test_an_action_keeps_the_scroll_position
    seed
    visit("/retries?per_page=100")
    row = page.css("td.row-actions button[value='retry']")[50]
    row.scroll_into_view
    before = page.evaluate("window.scrollY")
    assert_operator before, :>, 500, "scrolled well down the list"
    row.click
    wait_for(message: "the notice") { notice.include?("1 job sent to its queue") }
    assert_includes page.current_url, "per_page=100"
    assert_in_delta before, page.evaluate("window.scrollY"), 80, "back at the same height, give or take a row"
    assert_no_browser_problems
  end
end
