# frozen_string_literal: true

require "test_helper"
require "deckhand/api"
require "zlib"
require_relative "browser_harness"

# A job profiled on a real server, its profile on the Profiles page in a
# real headless Chromium: listed, reached from the navigation, and its data
# fetched by the page's own origin as the Download link fetches it.
class ProfilesBrowserTest < Minitest::Test
  include Deckhand::BrowserHarness

  class ReportJob
    include Deckhand::Job

    def perform(rows) = rows.times.sum { |i| Math.sqrt(i) }
  end

  def teardown
    close_page
    super
  end

  def test_a_profiled_job_is_listed_and_its_data_downloads
    jid = ReportJob.set(profile: "ops").perform_async(200_000)
    with_server(new_config(heartbeat_interval: 0.1)) { wait_for(message: "the profile") { redis.call("ZCARD", "profiles") == 1 } }

    visit("/")
    page.at_css(%(nav.sections a[href$="/profiles"])).click
    wait_for(message: "the Profiles page") { page.at_css("table.profiles") }
    row = page.at_css("table.profiles tbody tr")
    assert_includes row.text, ReportJob.name
    assert_includes row.text, jid
    assert_includes row.text, "ops"
    screenshot("profiles")
    href = page.at_css(%(table.profiles a[download])).attribute("href")
    assert_equal "/profiles/ops-#{jid}/data", href
    page.execute("window.profileSize = null; fetch(#{JSON.generate(href)}).then(r => r.json()).then(json => { window.profileSize = JSON.stringify(json).length })")
    size = wait_for(message: "the page's fetch of the profile") { page.evaluate("window.profileSize") }
    assert_operator size, :>, 10, "the browser reads the profile's JSON (served gzipped)"
    assert_no_browser_problems
  end
end
