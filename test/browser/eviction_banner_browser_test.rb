# frozen_string_literal: true

require "test_helper"
require_relative "browser_harness"

# The dashboard's eviction banner in a real headless Chromium at 1280 px,
# against `deckhand web` on the test Redis switched to an evicting policy
# for the test (maxmemory stays unset there: nothing is evicted).
class EvictionBannerBrowserTest < Minitest::Test
  include Deckhand::BrowserHarness

  def teardown
    close_page
    redis.call("CONFIG", "SET", "maxmemory-policy", "noeviction")
    super
  end

  def test_the_banner_tops_the_dashboard_at_desktop_width
    redis.call("CONFIG", "SET", "maxmemory-policy", "allkeys-lru")
    visit("/")
    assert_equal 1280, page.evaluate("window.innerWidth")
    banner = page.at_css("#eviction-warning")
    assert banner, "the banner is on the page"
    assert_includes banner.text, "has maxmemory-policy allkeys-lru"
    assert_includes banner.text, "whole queues of jobs among them"
    assert_equal "CONFIG SET maxmemory-policy noeviction", page.at_css("#eviction-warning code").text
    assert_equal true, in_view?("#eviction-warning"), "laid out within the window's width"
    above = page.evaluate(<<~JS)
      document.querySelector("#eviction-warning").getBoundingClientRect().bottom <=
        document.querySelector("section.cards").getBoundingClientRect().top
    JS
    assert above, "above the counters, the first thing read"
    assert_equal 0, page.evaluate("document.documentElement.scrollWidth - window.innerWidth"), "no sideways scroll"
    screenshot("dashboard-eviction-warning")
    assert_no_browser_problems
    redis.call("CONFIG", "SET", "maxmemory-policy", "noeviction")
    page.refresh
    assert_nil page.at_css("#eviction-warning"), "gone once Redis cannot evict"
  end
end
