# frozen_string_literal: true

require "test_helper"
require "deckhand/api"
require_relative "browser_harness"

# The Periodic page in a real headless Chromium: it loads clean under the
# page's policy, and its buttons pause, resume and enqueue now.
class PeriodicBrowserTest < Minitest::Test
  include Deckhand::BrowserHarness

  def teardown
    close_page
    super
  end

  def api = Deckhand::API.new(Deckhand.config)

  def test_the_periodic_page_loads_clean_and_its_buttons_work
    entries = {"nightly" => {"cron" => "0 2 * * *", "timezone" => "Europe/Paris", "class" => "RecordJob", "queue" => "reports", "args" => ["<b>daily</b>"]}}
    Deckhand::Store::Features::PeriodicState.write_schedule(Deckhand.config.store, {"leader" => "host:1:abc", "entries" => entries})
    visit("/periodic")
    assert_includes page.body, "every day at 02:00"
    screenshot("periodic")
    assert_no_browser_problems
    page.at_css(%(button[value="pause"])).click
    wait_for(message: "paused") { page.at_css(".notice")&.text&.include?("Paused: its ticks pass") }
    assert api.periodic.fetch("nightly").paused?
    page.at_css(%(button[value="resume"])).click
    wait_for(message: "resumed") { page.at_css(".notice")&.text&.include?("Resumed: it runs from its next tick") }
    refute api.periodic.fetch("nightly").paused?
    page.at_css(%(button[value="enqueue"])).click # asks first; the harness says OK
    wait_for(message: "enqueued") { page.at_css(".notice")&.text&.include?("Enqueued now") }
    assert_equal [["<b>daily</b>"]], jobs_in("reports").map { |job| job["args"] }
    assert_no_browser_problems
  end
end
