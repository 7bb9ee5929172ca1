# frozen_string_literal: true

require "test_helper"
require "deckhand/server"
require_relative "browser_harness"

# The charts start from the stored history, in headless Chromium against
# `deckhand web`, on a laptop's width and a phone's: the dashboard's live
# chart shows the minutes the servers recorded before any poll, and a
# queue's page charts the depth the queue sampler took; the failures by
# error class are drawn as bars. Screenshots land in
# tmp/screenshots/.
class HistoryChartsBrowserTest < Minitest::Test
  include Deckhand::BrowserHarness

  WIDTHS = {"laptop" => [1280, 900, false], "phone" => [390, 844, true]}.freeze

  def teardown
    close_page
    super
  end

  # 20 minutes of work, 10 + i jobs in the minute i minutes ago (every
  # fifth failing), and the mailers queue sampled by the real sampler in
  # three of those minutes, 5, 25 and 45 jobs deep.
  def seed
    store = Deckhand.config.store
    now = store.clock.now
    tally = Deckhand::Store::Records::ExecutionMetrics::Tally.new
    (1..20).each do |ago|
      (10 + ago).times do |i|
        tally.record("ReportJob", 3.0, (i % 5).zero?)
        tally.record_error(ago.even? ? "Net::ReadTimeout" : "KeyError") if (i % 5).zero?
      end
      store.pipelined do |pipe|
        Deckhand::Store::Records::ExecutionMetrics.flush(pipe, tally.take, now: Time.at(now - (60 * ago)))
        Deckhand::Store::Records::ErrorMetrics.flush(pipe, tally.take_errors, now: Time.at(now - (60 * ago)), prefix: store.layout::METRICS)
      end
    end
    sampler = Deckhand::Server::Chores::QueueSampler.new(store: store, identity: "host-a:1", logger: QUIET_LOGGER)
    [[3, 5], [2, 20], [1, 20]].each do |ago, jobs|
      Deckhand::Client.push_bulk("class" => "ReportJob", "args" => (1..jobs).to_a.zip, "queue" => "mailers")
      sampler.tick(now - (60 * ago))
    end
  end

  # The hover titles of a chart's points, read in one go: a chart redraws
  # itself (new nodes) when the window is resized.
  def titles(chart) = page.evaluate("Array.from(document.querySelectorAll('#{chart} rect.hover title')).map(function (t) { return t.textContent; })")

  def processed_in_titles = titles("#live-chart").map { |title| title[/: ([\d,.]+)/, 1].to_s.delete(",.").to_i }

  def test_the_charts_have_points_from_history_right_after_load
    seed
    WIDTHS.each do |name, (width, height, mobile)|
      visit("/?interval=60") # no poll before the assertions: the points are the stored ones
      page.set_viewport(width: width, height: height, scale_factor: 1, mobile: mobile)
      page.refresh
      wait_for(message: "the live chart drawn") { page.at_css("#live-chart path.line.series-0") }
      assert_equal "60", page.at_css("#live-chart").attribute("data-points"), "#{name}: an hour of minutes at load"
      assert_operator processed_in_titles.count(&:positive?), :>=, 20, "#{name}: the 20 recorded minutes are on the chart"
      refute page.at_css("[data-no-history]"), "#{name}: no empty-state note when there is history"
      assert_operator page.evaluate("document.querySelectorAll('#failures-chart rect.bar').length"), :>=, 20, "#{name}: a bar of failures for each recorded minute"
      assert_equal %w[KeyError Net::ReadTimeout], page.evaluate("Array.from(document.querySelectorAll('#failures-chart .legend li')).map(function (li) { return li.textContent; })").sort
      assert_equal 0, page.evaluate("document.documentElement.scrollWidth - window.innerWidth"), "#{name}: nothing scrolls sideways"
      screenshot("history-dashboard-#{name}")

      page.go_to("#{Deckhand::BrowserHarness.url}/queues/mailers")
      wait_for(message: "the depth chart drawn") { page.at_css("#depth-chart path.line") }
      values = titles("#depth-chart").map { |title| title[/: ([\d,.]+)\z/, 1] }.compact
      assert_equal %w[5 25 45], values.last(3), "#{name}: the sampled depths, a minute each"
      assert page.at_css("#latency-chart path.line"), "#{name}: the latency chart is drawn"
      assert_equal 0, page.evaluate("document.documentElement.scrollWidth - window.innerWidth"), "#{name}: nothing scrolls sideways"
      screenshot("history-queue-#{name}")
      assert_no_browser_problems
      close_page
    end
  end

  # A click on the pager keeps the chart's period, and a click on a period
  # tab keeps the page: the user paging through a deep queue while
  # watching its last 4 hours keeps watching them.
  def test_paging_a_queue_keeps_its_charts_period
    seed
    Deckhand::Client.push_bulk("class" => "ReportJob", "args" => (1..60).to_a.zip, "queue" => "mailers")
    visit("/queues/mailers?period=4h")
    wait_for(message: "the depth chart drawn") { page.at_css("#depth-chart path.line") }
    page.at_css(%(nav.pager a[href*="page=2"])).scroll_into_view.click # below the fold
    wait_for(message: "page 2") { page.at_css(%(nav.pager [aria-current="page"]))&.text == "2" }
    wait_for(message: "the depth chart drawn") { page.at_css("#depth-chart path.line") }
    assert_equal "4h", page.at_css(%(#queue-history nav.tabs [aria-current="page"])).text, "the period chosen on page 1"
    assert_equal 240, JSON.parse(page.at_css("#depth-chart").attribute("data-labels")).size, "a point a minute over 4 hours"
    page.at_css(%(#queue-history nav.tabs a[href*="period=24h"])).scroll_into_view.click
    wait_for(message: "the 24h tab") { page.at_css(%(#queue-history nav.tabs [aria-current="page"]))&.text == "24h" }
    assert_equal "2", page.at_css(%(nav.pager [aria-current="page"])).text, "the page the user was on"
    assert_equal 288, JSON.parse(page.at_css("#depth-chart").attribute("data-labels")).size, "a point per 5 minutes over a day"
    assert_no_browser_problems
  end

  def test_an_empty_redis_shows_the_empty_state_without_errors
    visit("/?interval=60")
    wait_for(message: "the live chart drawn") { page.at_css("#live-chart svg") }
    assert page.at_css("[data-no-history]")
    page.go_to("#{Deckhand::BrowserHarness.url}/queues/default")
    assert_includes page.at_css("#queue-history").text, "No samples yet"
    assert_no_browser_problems
  end
end
