# frozen_string_literal: true

require "test_helper"
require "deckhand/api"
require "erb"
require_relative "browser_harness"

# Long content, in headless Chromium against `deckhand web`: a job's long
# error message is clamped with a way to read it all, and a filtered list of
# long entries keeps every row's buttons on screen, at desktop and phone width.
class LongContentBrowserTest < Minitest::Test
  include Deckhand::BrowserHarness

  WIDTHS = [["desktop", 1280, 900, false], ["phone", 390, 844, true]].freeze

  def teardown
    close_page
    super
  end

  def api = Deckhand::API.new(Deckhand.config)

  def failed(jid, message:, klass: "Billing::Statements::MonthlyStatementDeliveryJob", queue: "billing_statements_monthly")
    {"class" => klass, "args" => [{"customer_id" => 98431, "statement_period" => "2026-10", "delivery" => "email"}, "x" * 400],
     "jid" => jid, "queue" => queue, "retry" => true, "retry_count" => 4, "error_class" => "ActiveRecord::StatementInvalid",
     "error_message" => message, "failed_at" => Deckhand::Payload.now, "created_at" => Deckhand::Payload.now,
     "error_backtrace" => Deckhand::Payload::Backtrace.compress(["app/jobs/statement_job.rb:12:in `perform'"])}
  end

  def seed
    long = "PG::QueryCanceled: ERROR: canceling statement due to statement timeout " + ("SELECT \"statements\".* FROM \"statements\" WHERE id IN (#{(1..40).to_a.join(", ")}) " * 40)
    long = long[0, 5000]
    now = Time.now.to_f
    6.times { |i| redis.call("ZADD", "retry", now + 60 * i, JSON.generate(failed(format("s%023d", i), message: long))) }
    long
  end

  def with_widths
    WIDTHS.each do |label, width, height, mobile|
      page.set_viewport(width: width, height: height, scale_factor: 1, mobile: mobile)
      yield label, width
    end
  end

  # The button's box inside the viewport and inside the scrolling box that
  # holds the table (a button scrolled out of its box is cut off all the same).
  def fully_shown?(selector)
    page.evaluate(<<~JS)
      (function () {
        var el = document.querySelector(#{JSON.generate(selector)});
        if (!el) return "missing";
        var box = el.getBoundingClientRect();
        var holder = el.closest(".scroll").getBoundingClientRect();
        return box.width > 0 && box.left >= Math.max(0, holder.left) && box.right <= Math.min(window.innerWidth, holder.right);
      })()
    JS
  end

  def test_a_filtered_list_of_long_entries_keeps_its_delete_buttons_on_screen
    seed
    visit("/retries")
    with_widths do |label, width|
      page.go_to("#{Deckhand::BrowserHarness.url}/retries?q=StatementInvalid")
      assert page.at_css("#filter-status"), "the filtered list"
      assert_equal true, fully_shown?(%(td.row-actions button.danger)), "the first row's Delete at #{width} px"
      assert_equal true, fully_shown?(%(tbody tr:last-child td.row-actions button.danger)), "the last row's Delete at #{width} px"
      overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
      assert_operator overflow, :<=, 0, "the page scrolls sideways at #{width} px"
      screenshot("long-retries-filtered-#{label}")
    end
    assert_no_browser_problems
  end

  def test_a_long_error_message_is_clamped_with_a_way_to_read_it_all
    long = seed
    key = ERB::Util.url_encode(api.retries.page(1, 1).first.key)
    visit("/retries/#{key}")
    with_widths do |label, width|
      page.go_to("#{Deckhand::BrowserHarness.url}/retries/#{key}")
      shown = page.evaluate("document.querySelector('.error-message').getBoundingClientRect().height")
      assert_operator shown, :<, 200, "the message shows its first lines at #{width} px"
      facts = page.evaluate("document.querySelector('table.facts').getBoundingClientRect().top + window.scrollY")
      assert_operator facts, :<, 700, "the job's facts start within the first screen at #{width} px" if width > 1000
      screenshot("long-error-#{label}")
      page.at_css("#error-message-toggle").scroll_into_view.click
      wait_for(message: "the whole message") { page.evaluate("document.querySelector('.error-message').scrollHeight <= document.querySelector('.error-message').clientHeight + 1") }
      assert_equal long, page.at_css(".error-message").text, "the message in full, unchanged"
      assert_equal "Show less", page.at_css("#error-message-toggle").text
      screenshot("long-error-open-#{label}")
    end
    assert_no_browser_problems
  end

  def test_a_short_error_message_has_no_toggle
    redis.call("ZADD", "retry", Time.now.to_f, JSON.generate(failed("t" * 24, message: "boom")))
    visit("/retries/#{ERB::Util.url_encode(api.retries.page(1, 1).first.key)}")
    assert_equal "boom", page.at_css(".error-message").text
    assert_nil page.at_css("#error-message-toggle")
    assert_no_browser_problems
  end

  def test_find_by_an_argument_lists_the_jobs_and_leads_to_each
    seed
    Deckhand::Client.push("class" => "RecordJob", "args" => [98431], "queue" => "mailers")
    visit("/")
    with_widths do |label, width|
      page.go_to("#{Deckhand::BrowserHarness.url}/")
      page.at_css(%(form.find input[name="jid"])).focus.type("98431", :enter)
      wait_for(message: "the results") { page.at_css("#find-results") }
      assert_equal 7, page.css("#find-results tbody tr").size, "six retries and the queued job"
      assert_includes page.at_css("#find-reach").text, "the next 10,000 jobs of each queue"
      overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
      assert_operator overflow, :<=, 0, "the results scroll sideways at #{width} px"
      screenshot("find-by-argument-#{label}")
    end
    visit("/") # 1280 px: one page load from the front page to the jobs found
    count_loads
    page.at_css(%(form.find input[name="jid"])).focus.type("98431", :enter)
    wait_for(message: "the results' page load") { loads >= 1 && page.at_css("#find-results") }
    assert_equal 7, page.css("#find-results tbody tr").size
    assert_equal 1, loads, "page loads from the front page to the jobs with the argument"
    page.css("#find-results tbody tr td a").last.scroll_into_view.click
    wait_for(message: "the queue's page") { page.current_url.include?("/queues/mailers") }
    assert_includes page.at_css("table.jobs").text, "98431"
    assert_no_browser_problems
  end
end
