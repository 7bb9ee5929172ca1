# frozen_string_literal: true

require "test_helper"
require "deckhand/api"
require "erb"
require_relative "browser_harness"

# The dashboard in a real headless Chromium, against `deckhand web` on a free
# port: every page loads clean (no console errors, no policy violations), the
# buttons work, the live chart moves. Screenshots land in tmp/screenshots/.
class DashboardBrowserTest < Minitest::Test
  include Deckhand::BrowserHarness

  def teardown
    close_page
    super
  end

  def api = Deckhand::API.new(Deckhand.config)

  def failed_job(jid, queue: "default")
    {"class" => "FailJob", "args" => [jid, {"note" => "<b>not bold</b>"}], "jid" => jid, "queue" => queue, "retry" => true,
     "retry_count" => 3, "error_class" => "ArgumentError", "error_message" => "failed on purpose: \"quoted\" <i>",
     "failed_at" => Deckhand::Payload.now, "created_at" => Deckhand::Payload.now,
     "error_backtrace" => Deckhand::Payload::Backtrace.compress(["app/jobs/fail_job.rb:9:in `perform'", "lib/deckhand/server/run/job_runner.rb:60"])}
  end

  def seed
    Deckhand::Client.push_bulk("class" => "RecordJob", "args" => (1..30).map { |i| [i, "user-#{i}"] }, "queue" => "mailers")
    Deckhand::Client.push("class" => "RecordJob", "args" => ["x" * 400], "queue" => "default")
    now = Time.now.to_f
    6.times do |i|
      redis.call("ZADD", "retry", now + (60 * i), JSON.generate(failed_job(format("r%023d", i))))
      redis.call("ZADD", "dead", now - (60 * i), JSON.generate(failed_job(format("d%023d", i))))
      redis.call("ZADD", "schedule", now + (600 * i), JSON.generate(failed_job(format("s%023d", i)).slice("class", "args", "jid", "queue")))
    end
    30.times { |d| redis.call("SET", "stat:processed:#{(Time.now.utc - (d * 86_400)).strftime("%Y-%m-%d")}", 1000 + (d * 37)) }
    tally = Deckhand::Store::Records::ExecutionMetrics::Tally.new
    5.times do |m|
      40.times { |i| tally.record("RecordJob", 2.0 + (i % 7), i.zero?) }
      Deckhand.config.store.pipelined { |pipe| Deckhand::Store::Records::ExecutionMetrics.flush(pipe, tally.take, now: Time.now - (m * 60)) }
    end
  end

  def test_every_page_loads_clean
    seed
    retry_key = ERB::Util.url_encode(api.retries.page(1, 1).first.key)
    {
      "dashboard" => ["/", "Throughput"], "busy" => ["/busy", "Processes"], "queues" => ["/queues", "mailers"],
      "queue" => ["/queues/mailers", "RecordJob"], "retries" => ["/retries", "ArgumentError"],
      "retry" => ["/retries/#{retry_key}", "Backtrace"], "scheduled" => ["/scheduled", "FailJob"],
      "dead" => ["/dead", "failed on purpose"], "filter" => ["/dead?q=d00000000000000000000003", "1 found"],
      "metrics" => ["/metrics", "RecordJob"], "metric" => ["/metrics/RecordJob", "Execution time"]
    }.each do |name, (path, text)|
      visit(path)
      assert_includes page.body, text, path
      assert_equal "Deckhand", page.at_css(".brand").text
      screenshot(name)
      assert_no_browser_problems
    end
  end

  def test_charts_are_drawn_from_the_data
    seed
    visit("/")
    bars = page.css("#history-chart rect.bar")
    assert_equal 30, bars.size, "one bar per day of the 30 shown"
    visit("/metrics/RecordJob")
    assert_equal 2, page.css("[data-chart] svg.chart-svg").size
    assert_operator page.css("[data-chart='line'] path.line").size, :>=, 1
    assert_no_browser_problems
  end

  def test_retry_and_delete_by_clicking
    seed
    key = api.retries.page(1, 1).first.key
    visit("/retries")
    page.at_css(%(button[value="retry"][formaction$="#{ERB::Util.url_encode(key)}"])).click
    wait_for(message: "redirect after retry") { page.at_css(".notice")&.text&.include?("1 job sent to its queue") }
    assert_equal 5, api.retries.size
    assert_includes redis.call("LRANGE", "queue:default", 0, -1).join, "r00000000000000000000000"
    assert_no_browser_problems

    visit("/dead")
    page.at_css(%(button[value="delete"][formaction])).click
    wait_for(message: "redirect after delete") { page.at_css(".notice")&.text&.include?("1 job deleted") }
    assert_equal 5, api.dead.size
    boxes = page.css(%(input[name="keys[]"]))
    boxes[0].click
    boxes[1].click
    page.at_css(%(#bulk button[value="retry"])).click
    wait_for(message: "bulk retry") { page.at_css(".notice")&.text&.include?("2 jobs sent to their queues") }
    assert_equal 3, api.dead.size
    page.at_css(%(form.all button[value="delete"])).click # asks first; the harness says OK
    wait_for(message: "delete all") { page.at_css(".notice")&.text&.include?("3 jobs deleted") }
    assert_equal 0, api.dead.size
    assert_no_browser_problems

    visit("/queues/mailers")
    page.at_css(%(button[value="delete"])).click
    wait_for(message: "queue delete") { page.at_css(".notice")&.text&.include?("1 job deleted") }
    assert_equal 29, redis.call("LLEN", "queue:mailers")
    assert_no_browser_problems
  end

  def test_pause_and_filter
    seed
    visit("/queues")
    page.at_css(%(button[value="pause"])).click
    wait_for(message: "paused") { page.at_css(".notice")&.text&.include?("Queue paused") }
    assert_equal 1, redis.call("SCARD", "deckhand:paused")
    visit("/retries")
    page.at_css(%(input[name="q"])).focus.type("r00000000000000000000004", :enter)
    wait_for(message: "filtered") { page.current_url.include?("q=r00") }
    assert_equal 1, page.css(%(input[name="keys[]"])).size
    assert_no_browser_problems
  end

  def test_live_chart_moves_as_jobs_run
    Deckhand.config = new_config(heartbeat_interval: 0.2, concurrency: 5)
    visit("/?interval=1")
    initial = page.at_css(%([data-stat="processed"])).text
    with_server do
      Deckhand::Client.push_bulk("class" => "RecordJob", "args" => (1..200).to_a.zip)
      wait_for(timeout: 20, message: "the live chart to plot processed jobs") do
        # In one read: each poll redraws the chart's nodes.
        page.evaluate("Array.from(document.querySelectorAll('#live-chart rect.hover title')).map(function (t) { return t.textContent; })")
          .any? { |title| title[/Processed: ([\d,]+)/, 1].to_s.delete(",").to_i.positive? }
      end
    end
    refute_equal initial, page.at_css(%([data-stat="processed"])).text
    wait_for(message: "more points") { page.at_css("#live-chart").attribute("data-points").to_i >= 3 }
    assert page.at_css("#live-chart path.line.series-0"), "the processed line is drawn"
    screenshot("dashboard-live")
    assert_no_browser_problems
  end

  def test_phone_width_and_dark_mode
    seed
    visit("/")
    page.set_viewport(width: 390, height: 844, scale_factor: 2, mobile: true)
    page.command("Emulation.setEmulatedMedia", features: [{name: "prefers-color-scheme", value: "dark"}])
    page.refresh
    %w[/ /retries /busy /queues/mailers /metrics].each do |path|
      page.go_to("#{Deckhand::BrowserHarness.url}#{path}")
      overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
      assert_operator overflow, :<=, 0, "#{path} scrolls sideways on a phone"
    end
    page.go_to("#{Deckhand::BrowserHarness.url}/")
    background = page.evaluate("getComputedStyle(document.body).backgroundColor")
    assert_equal "rgb(15, 19, 24)", background, "dark mode follows the system setting"
    screenshot("dashboard-phone-dark")
    page.go_to("#{Deckhand::BrowserHarness.url}/retries")
    screenshot("retries-phone-dark")
    assert_no_browser_problems
  end
end
