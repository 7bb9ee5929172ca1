# frozen_string_literal: true

require "test_helper"
require "deckhand/api"
require_relative "browser_harness"

# Two on-call answers in headless Chromium against `deckhand web`, at 1280
# and 390 px, light and dark: "a queue backed up: why?" (the queue's page
# and the list name the class holding it, running and waiting, with shares
# and how long) and "did last night's cron run?" (the Periodic page says
# what became of the latest tick, and unfolds the last ones). Screenshots
# land in tmp/screenshots/story-holders-*.png and story-ticks-*.png.
class OpsAnswersBrowserTest < Minitest::Test
  include Deckhand::BrowserHarness

  VIEWS = [["desktop", 1280, 900, false, "light"], ["phone-dark", 390, 844, true, "dark"], ["phone", 390, 844, true, "light"]].freeze
  SERVER = "worker-1:42:abc"

  def teardown
    close_page
    super
  end

  def store = Deckhand.config.store

  def now = Deckhand::API.new(Deckhand.config).now.to_f

  def go(path) = page.go_to("#{Deckhand::BrowserHarness.url}#{path}")

  def each_view(first_path)
    visit(first_path)
    VIEWS.each do |label, width, height, mobile, scheme|
      page.set_viewport(width: width, height: height, scale_factor: 1, mobile: mobile)
      page.command("Emulation.setEmulatedMedia", features: [{name: "prefers-color-scheme", value: scheme}])
      yield label, width
    end
    assert_no_browser_problems
  end

  def no_sideways_scroll(path, width)
    assert_operator page.evaluate("document.documentElement.scrollWidth - window.innerWidth"), :<=, 0, "#{path} scrolls sideways at #{width} px"
  end

  # Ten threads on ReportJob for 7 minutes, as their process's work record says.
  def ten_threads_on_report_job
    redis.call("SADD", "processes", SERVER)
    info = {"hostname" => "worker-1", "pid" => 42, "identity" => SERVER, "queues" => %w[reports], "concurrency" => 10}
    redis.call("HSET", SERVER, "info", JSON.generate(info), "busy", "10", "beat", Time.now.to_f.to_s)
    10.times do |i|
      payload = {"class" => "Reports::QuarterlyRevenueReportJob", "jid" => format("%024x", i), "args" => [i], "queue" => "reports"}
      redis.call("HSET", "#{SERVER}:work", "t#{i}", JSON.generate("queue" => "reports", "payload" => payload, "run_at" => now - 420))
    end
  end

  def test_the_queue_screens_name_the_class_holding_a_backed_up_queue
    ten_threads_on_report_job
    Deckhand::Client.push_bulk("class" => "Reports::QuarterlyRevenueReportJob", "args" => (1..13).to_a.zip, "queue" => "reports")
    Deckhand::Client.push("class" => "MailJob", "args" => [1], "queue" => "reports")
    each_view("/queues/reports") do |label, width|
      go("/queues/reports")
      rows = page.css("table.holders tbody tr")
      assert_equal 2, rows.size, "two classes hold the queue at #{width} px"
      assert_includes rows[0].at_css("td.key").text, "Reports::QuarterlyRevenueReportJob"
      assert_equal "10 · 100%", rows[0].at_css("td.running").text.strip
      assert_equal "7 min", rows[0].at_css("td.running-for").text.strip
      assert_equal "13 · 93%", rows[0].at_css("td.waiting").text.strip
      ["table.holders td.key", "table.holders td.running", "table.holders td.running-for", "table.holders td.waiting", ".holders-note"].each do |selector|
        assert_equal true, in_view?(selector), "#{selector} on screen at #{width} px"
      end
      no_sideways_scroll("/queues/reports", width)
      screenshot("story-holders-queue-#{label}")
      go("/queues")
      line = page.at_css(".holders-line")
      assert_equal "running: Reports::QuarterlyRevenueReportJob 10 of 10, for 7 min · waiting: Reports::QuarterlyRevenueReportJob 93%", line.text.strip
      assert_equal true, in_view?(".holders-line"), "the list's line on screen at #{width} px"
      no_sideways_scroll("/queues", width)
      screenshot("story-holders-list-#{label}")
    end
  end

  def test_from_the_front_page_the_class_holding_a_queue_is_one_page_load_away
    ten_threads_on_report_job
    Deckhand::Client.push_bulk("class" => "Reports::QuarterlyRevenueReportJob", "args" => (1..13).to_a.zip, "queue" => "reports")
    visit("/")
    count_loads
    click_to_load(%(#main table a[href$="/queues/reports"]))
    assert_includes page.at_css("table.holders tbody tr td.key").text, "Reports::QuarterlyRevenueReportJob"
    assert_equal "13 · 100%", page.at_css("table.holders tbody tr td.waiting").text.strip
    assert_equal 1, loads, "page loads from the front page to who holds the queue"
    assert_no_browser_problems
  end

  def test_the_periodic_page_says_what_became_of_the_last_ticks
    entries = {"nightly_report" => {"cron" => "0 2 * * *", "timezone" => "UTC", "class" => "NightlyReportJob", "queue" => "reports", "args" => []}}
    Deckhand::Store::Features::PeriodicState.write_schedule(store, {"leader" => SERVER, "entries" => entries})
    history = Deckhand::Store::Scripts::PeriodicHistory.new(store)
    at = now
    history.call(name: "nightly_report", record: {"tick" => (at - 172_800).to_i, "state" => "failed", "jid" => "c" * 24, "error" => "PG::ConnectionBad",
                                                  "started_at" => at - 172_700, "at" => at - 172_690})
    history.call(name: "nightly_report", record: {"tick" => (at - 86_400).to_i, "state" => "succeeded", "jid" => "d" * 24, "started_at" => at - 86_000, "at" => at - 85_000})
    history.call(name: "nightly_report", record: {"tick" => (at - 360).to_i, "state" => "enqueued", "jid" => "e" * 24, "queue" => "reports", "at" => at - 360})
    redis.call("HSET", "deckhand:periodic:entry:nightly_report", "last_tick", (at - 360).to_i, "last_jid", "e" * 24, "next", (at + 86_000).to_i)
    visit("/")
    count_loads
    click_to_load(%(nav.sections a[href$="/periodic"]))
    assert_equal "enqueued waiting in reports for 6 min", page.at_css(".tick-latest").text.split.join(" ")
    page.at_css("details.ticks summary").click
    wait_for(message: "the last ticks unfolded") { page.evaluate("document.querySelector('details.ticks').open") }
    assert_includes page.at_css("ol.ticks").text, "succeeded in 16 min"
    assert_equal 1, loads, "page loads from the front page to the last ticks' outcomes"
    each_view("/periodic") do |label, width|
      go("/periodic")
      assert_equal "enqueued waiting in reports for 6 min", page.at_css(".tick-latest").text.split.join(" ")
      assert_equal true, in_view?(".tick-latest"), "the latest tick's outcome on screen at #{width} px"
      page.at_css("details.ticks summary").click
      wait_for(message: "the last ticks unfolded") { page.evaluate("document.querySelector('details.ticks').open") }
      items = page.css("ol.ticks li").map { |li| li.text.split.join(" ") }
      assert_equal 3, items.size
      assert_includes items[1], "succeeded in 16 min"
      assert_includes items[2], "failed PG::ConnectionBad, after 10.0 s"
      assert_equal true, in_view?("ol.ticks li:last-child"), "the oldest tick on screen at #{width} px"
      no_sideways_scroll("/periodic", width)
      screenshot("story-ticks-#{label}")
    end
  end
end
