# frozen_string_literal: true

require "test_helper"
require "deckhand/api"
require "deckhand/batch"
require_relative "browser_harness"

# The Batches pages in headless Chromium, served by `deckhand web` (which
# never loads deckhand/batch itself): list and detail load clean, the links
# lead from a failure to its retry entry, and the phone layout holds.
class BatchesBrowserTest < Minitest::Test
  include Deckhand::BrowserHarness

  def teardown
    close_page
    super
  end

  def tracker = Deckhand::Batch::Tracker.new(Deckhand.config)

  def retry_entry(jid, bid, message)
    {"class" => "WebhookJob", "args" => [jid], "jid" => jid, "bid" => bid, "queue" => "webhooks", "retry" => true,
     "retry_count" => 1, "error_class" => "IOError", "error_message" => message, "failed_at" => Deckhand::Payload.now}
  end

  # Six batches in various states; returns the one with failures and a child.
  def seed
    5.times do |n|
      batch = Deckhand::Batch.new
      batch.description = "Nightly export #{n} <b>not bold</b>"
      jids = batch.jobs { 20.times { |i| RecordJob.perform_async(i) } }
      jids.first(n * 5).each { |jid| tracker.success(batch.bid, jid) }
    end
    batch = Deckhand::Batch.new
    batch.description = "Deliver 100 webhooks"
    batch.on(:complete, "WebhookReport", "channel" => "#ops")
    batch.on(:success, "WebhookReport")
    jids = batch.jobs do
      100.times { |i| RecordJob.perform_async(i) }
      child = Deckhand::Batch.new
      child.description = "Retry slow endpoints"
      child.jobs { 5.times { |i| RecordJob.perform_async(i) } }
    end
    jids.first(80).each { |jid| tracker.success(batch.bid, jid) }
    jids[80, 6].each do |jid|
      tracker.failure(batch.bid, {"jid" => jid, "class" => "WebhookJob", "retry_count" => 1}, IOError.new("webhook #{jid} timed out \"quoted\" <i>"))
      redis.call("ZADD", "retry", Time.now.to_f + 60, JSON.generate(retry_entry(jid, batch.bid, "timed out")))
    end
    jids[86, 2].each { |jid| tracker.death({"bid" => batch.bid, "jid" => jid, "class" => "WebhookJob", "retry_count" => 2}, IOError.new("gave up")) }
    [batch, jids]
  end

  def test_batches_list_and_detail_load_clean
    visit("/batches")
    assert_includes page.body, "No batches in Redis"
    screenshot("batches-empty")
    assert_no_browser_problems

    batch, jids = seed
    visit("/batches")
    assert_equal 7, page.css("svg.progress").size, "a bar per batch, the child included"
    assert_includes page.body, "80 of 100 succeeded, 6 failing, 2 dead, 12 waiting"
    screenshot("batches")
    assert_no_browser_problems

    page.at_xpath(%(//a[text()="Deliver 100 webhooks"])).click
    wait_for(message: "the batch page") { page.current_url.end_with?("/batches/#{batch.bid}") }
    assert_includes page.body, "WebhookReport#on_complete"
    assert_includes page.body, "Retry slow endpoints"
    assert_equal 8, page.css("table.jobs tbody tr").size
    screenshot("batch")
    assert_no_browser_problems

    page.at_css(%(a[href*="/jobs/#{jids[80]}"])).scroll_into_view.click # below the fold
    wait_for(message: "the retry entry") { page.current_url.include?("/retries/") }
    assert_includes page.body, jids[80]
    assert_no_browser_problems
  end

  def test_batches_on_a_phone_in_dark_mode
    batch, = seed
    visit("/batches")
    page.set_viewport(width: 390, height: 844, scale_factor: 2, mobile: true)
    page.command("Emulation.setEmulatedMedia", features: [{name: "prefers-color-scheme", value: "dark"}])
    ["/batches", "/batches/#{batch.bid}"].each do |path|
      page.go_to("#{Deckhand::BrowserHarness.url}#{path}")
      overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
      assert_operator overflow, :<=, 0, "#{path} scrolls sideways on a phone"
      assert_equal "rgb(23, 28, 35)", page.evaluate("getComputedStyle(document.querySelector('.panel')).backgroundColor"), "dark panels"
    end
    screenshot("batch-phone-dark")
    page.go_to("#{Deckhand::BrowserHarness.url}/batches")
    screenshot("batches-phone-dark")
    assert_no_browser_problems
  end
end
