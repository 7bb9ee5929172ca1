# frozen_string_literal: true

require "test_helper"
require "deckhand/api"
require_relative "browser_harness"

# The error × job class table of the grouped view, in headless Chromium at
# 1280 and 390 px, with the long names real applications have (namespaced
# job classes, an SDK's error classes): every name, count, time and button
# whole on screen, nothing cut by its cell or by the screen's edge, and no
# sideways scrolling. Screenshots land in tmp/screenshots/.
class TriageMatrixBrowserTest < Minitest::Test
  include Deckhand::BrowserHarness

  LONG_CLASS = "Billing::Reconciliation::BackfillOrdersForEveryMerchantInTheRegionJob"
  LONG_ERROR = "Aws::S3::Errors::ServiceUnavailableExceptionFromTheRegionalEndpoint"
  UNBROKEN = "ReconcileEveryLedgerEntryOfEveryMerchantAccountInEveryRegionJob"

  def teardown
    close_page
    super
  end

  def failed(jid, klass, error, at)
    {"class" => klass, "args" => [jid], "jid" => jid, "queue" => "default", "retry" => true, "retry_count" => 2,
     "error_class" => error, "error_message" => "#{error} on purpose", "failed_at" => at, "created_at" => at}
  end

  def seed
    now = Time.now.to_f
    mix = [[LONG_CLASS, LONG_ERROR], ["MailJob", LONG_ERROR], [UNBROKEN, "Net::ReadTimeout"], ["MailJob", "Net::ReadTimeout"]]
    40.times do |i|
      klass, error = mix[i % mix.size]
      redis.call("ZADD", "retry", now + i, JSON.generate(failed(format("j%023d", i), klass, error, now - 86_400 * 3 + i * 600)))
    end
  end

  # Each element of the table whose content is wider than its own box (cut,
  # or spilling into its neighbour), or that reaches past the screen's right
  # edge: what it says, so a failure names it.
  def clipped
    page.evaluate(<<~JS)
      (function () {
        var bad = [];
        document.querySelectorAll("#cross th, #cross td, #cross td a, #cross td.row-actions a.button").forEach(function (el) {
          var box = el.getBoundingClientRect();
          if (box.width === 0) return;
          var text = el.textContent.trim().slice(0, 40);
          if (el.scrollWidth > el.clientWidth + 1 && getComputedStyle(el).display !== "inline") bad.push("cut: " + text);
          if (box.right > window.innerWidth + 0.5 || box.left < -0.5) bad.push("off screen: " + text);
        });
        var wrap = document.querySelector("#cross").parentElement;
        if (wrap.scrollWidth > wrap.clientWidth + 1) bad.push("the table scrolls sideways in its box");
        return bad;
      })()
    JS
  end

  def test_the_cross_table_reads_whole_at_desktop_and_phone_width
    seed
    visit("/")
    [["desktop", 1280, 900, false], ["phone", 390, 844, true]].each do |label, width, height, mobile|
      page.set_viewport(width: width, height: height, scale_factor: 1, mobile: mobile)
      page.go_to("#{Deckhand::BrowserHarness.url}/retries?view=groups")
      wait_for(message: "the cross table") { page.at_css("#cross") }
      texts = page.css("#cross").first.text
      [LONG_CLASS, LONG_ERROR, UNBROKEN].each { |name| assert_includes texts, name, "#{name} whole at #{width} px" }
      assert_empty clipped, "the cross table at #{width} px"
      assert_operator page.evaluate("document.documentElement.scrollWidth - window.innerWidth"), :<=, 0, "the grouped view scrolls sideways at #{width} px"
      screenshot("grouped-matrix-#{label}")
    end
    assert_no_browser_problems
  end
end
