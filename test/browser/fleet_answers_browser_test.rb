# frozen_string_literal: true

require "test_helper"
require "deckhand/api"
require_relative "browser_harness"

# Two on-call answers in headless Chromium against `deckhand web`, which is
# started with no application configuration, at 1280 and 390 px: a throttle
# only the servers' configuration sets shows on Limits and on the queue's
# page (limit, slots held, where it comes from), and the metrics pages time
# successes apart from failures (a job slow when it works is not hidden by its
# fast failures). Screenshots land in tmp/screenshots/.
class FleetAnswersBrowserTest < Minitest::Test
  include Deckhand::BrowserHarness

  WIDTHS = [["desktop", 1280, 900, false], ["phone", 390, 844, true]].freeze
  SERVER = "worker-1:42:abc"

  def teardown
    close_page
    super
  end

  def go(path) = page.go_to("#{Deckhand::BrowserHarness.url}#{path}")

  def no_sideways_scroll(path, width)
    assert_operator page.evaluate("document.documentElement.scrollWidth - window.innerWidth"), :<=, 0, "#{path} scrolls sideways at #{width} px"
  end

  # A live server process whose configuration throttles exports to 2 at a
  # time, as its heartbeat publishes it; the fleet holds both slots.
  def publish_server_throttle
    redis.call("SADD", "processes", SERVER)
    info = {"hostname" => "worker-1", "pid" => 42, "identity" => SERVER, "queues" => %w[default exports],
            "throttles" => {"exports" => {"concurrency" => 2}}}
    redis.call("HSET", SERVER, "info", JSON.generate(info), "busy", "2", "beat", Time.now.to_f.to_s)
  end

  def throttles_panel = page.css("section.panel").find { |s| s.at_css("h2").text.start_with?("Queue throttles") }

  def test_a_throttle_only_the_servers_set_shows_on_limits_and_the_queue_at_both_widths
    3.times { Deckhand::Client.push("class" => "ExportJob", "args" => [1], "queue" => "exports") }
    redis.call("HSET", Deckhand.config.store.layout.throttle("exports"), "~held", 2, SERVER, 2)
    visit("/limits")
    assert_includes throttles_panel.text, "No queue is throttled", "this dashboard configures no throttle of its own"
    publish_server_throttle
    WIDTHS.each do |label, width, height, mobile|
      page.set_viewport(width: width, height: height, scale_factor: 1, mobile: mobile)
      go("/limits")
      row = page.css("table.throttles tbody tr").find { |tr| tr.at_css("td a")&.text == "exports" }
      assert row, "a line for exports on Limits at #{width} px"
      cells = row.css("td").map { |td| td.text.strip }
      assert_equal ["exports", "–", "2", "2", "configuration of 1 server process"], cells.first(5), "queue, rate, concurrency, slots held, source"
      # the queue, its slots held, where it comes from, and Remove
      ["td a", "td:nth-child(4)", "td:nth-child(5)", %(button[value="remove"])].each do |cell|
        selector = "table.throttles tbody tr #{cell}"
        assert_equal true, in_view?(selector), "#{selector} on screen at #{width} px"
      end
      assert_equal true, in_view?(%(button[value="set"])), "Set throttle on screen at #{width} px"
      no_sideways_scroll("/limits", width)
      screenshot("story-limits-published-#{label}")
      go("/queues/exports")
      badge = page.at_css(%(a.badge[href="/limits"]))
      assert badge, "the throttle's badge on the queue's page at #{width} px"
      assert_equal "throttled · 2/2 running", badge.text.strip
      assert_equal "Throttle: configuration of 1 server process; 2 of 2 slots held across the fleet.", page.at_css(".throttle-source").text.strip
      assert_equal true, in_view?(%(a.badge[href="/limits"])), "the badge on screen at #{width} px"
      assert_equal true, in_view?(".throttle-source"), "where the throttle comes from on screen at #{width} px"
      no_sideways_scroll("/queues/exports", width)
      screenshot("story-queue-published-throttle-#{label}")
    end
    assert_no_browser_problems
  end

  # 10 runs that took 2.0 s and 90 that failed in 0.06 ms.
  def record_slow_successes_and_fast_failures
    tally = Deckhand::Store::Records::ExecutionMetrics::Tally.new
    10.times { tally.record("SlowWhenItWorks", 2000.0, false) }
    90.times { tally.record("SlowWhenItWorks", 0.06, true) }
    Deckhand::Store::Records::ExecutionMetrics.write(Deckhand.config.store, tally.take)
  end

  def seconds(text)
    assert_match(/\A\d+(\.\d+)? s\z/, text)
    text.to_f
  end

  def milliseconds(text)
    assert_match(/\A\d+(\.\d+)? ms\z/, text)
    text.to_f
  end

  def card(label) = page.css(".card").find { |c| c.at_css(".label").text == label }&.at_css(".value")&.text.to_s

  def test_the_metrics_pages_time_successes_apart_from_failures_at_both_widths
    record_slow_successes_and_fast_failures
    visit("/")
    WIDTHS.each do |label, width, height, mobile|
      page.set_viewport(width: width, height: height, scale_factor: 1, mobile: mobile)
      go("/metrics")
      row = page.css("table.metrics tbody tr").find { |tr| tr.at_css("td a")&.text == "SlowWhenItWorks" }
      assert row, "a line for SlowWhenItWorks at #{width} px"
      cells = row.css("td.num").map { |td| td.text.strip }
      assert_equal %w[100 90], cells.first(2), "executions, failed"
      assert_in_delta 2.0, seconds(cells[2]), 0.01, "the successes' average"
      assert_in_delta 2.0, seconds(cells[3]), 0.25, "the successes' p50, not the failures' ms"
      failed_p50, failed_p95 = cells[6].split(" / ")
      assert_operator milliseconds(failed_p50), :<, 1, "the failures' p50 apart"
      assert_operator milliseconds(failed_p95), :<, 1, "the failures' p95 apart"
      {"the successes' p50" => "td:nth-child(5)", "the failures' timings" => "td:nth-child(8)"}.each do |what, cell|
        assert_equal true, in_view?("table.metrics tbody tr #{cell}"), "#{what} on screen at #{width} px"
      end
      no_sideways_scroll("/metrics", width)
      screenshot("story-metrics-split-#{label}")
      go("/metrics/SlowWhenItWorks")
      assert_equal "100", card("Executions")
      assert_equal "90", card("Failed")
      assert_in_delta 2.0, seconds(card("p50 (succeeded)")), 0.25, "the successes' p50"
      assert_operator seconds(card("p95 (succeeded)")), :>=, seconds(card("p50 (succeeded)"))
      assert_operator milliseconds(card("p50 (failed)")), :<, 1, "the failures' p50 apart"
      page.css(".card").each_with_index do |c, i|
        assert_operator c.evaluate("this.getBoundingClientRect().right"), :<=, width, "card #{i} (#{c.text.strip}) on screen at #{width} px"
      end
      no_sideways_scroll("/metrics/SlowWhenItWorks", width)
      screenshot("story-metric-split-#{label}")
    end
    assert_no_browser_problems
  end
end
