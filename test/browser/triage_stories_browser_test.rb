# frozen_string_literal: true

require "test_helper"
require "deckhand/api"
require_relative "browser_harness"

# The stories the dashboard answers, in headless Chromium against `deckhand
# web`: retrying one class's timeouts in two page loads from the front page
# (three from the grouped view through the confirmation when a warning must
# come first), each phone page keeping its key field and its action on a 390
# px screen, and the keyboard's way through (skip link, focus after an
# action). Screenshots land in tmp/screenshots/.
class TriageStoriesBrowserTest < Minitest::Test
  include Deckhand::BrowserHarness

  LONG_CLASS = "BackfillOrdersForEveryMerchantInTheRegionJob"

  def teardown
    close_page
    super
  end

  def api = Deckhand::API.new(Deckhand.config)

  def failed(jid, klass:, error:, failed_at: Deckhand::Payload.now)
    {"class" => klass, "args" => [jid], "jid" => jid, "queue" => "default", "retry" => true, "retry_count" => 2,
     "error_class" => error, "error_message" => "#{error} on purpose", "failed_at" => failed_at, "created_at" => failed_at}
  end

  MIX = [["MailJob", "Net::ReadTimeout"]] * 5 + [["ReportJob", "Net::ReadTimeout"], ["MailJob", "ArgumentError"]]

  # 250 MailJob timeouts mixed with 50 ReportJob timeouts and 50 MailJob
  # errors of another kind.
  def seed_retries
    now = Time.now.to_f
    350.times do |i|
      klass, error = MIX[i % 7]
      redis.call("ZADD", "retry", now + i, JSON.generate(failed(format("j%023d", i), klass: klass, error: error, failed_at: now - 3600 + i)))
    end
  end

  WIDTHS = [["desktop", 1280, 900, false], ["phone", 390, 844, true]].freeze

  # No live process works "default": the line's Retry now… goes to the
  # confirmation page, which says so before the click.
  def test_with_no_process_for_their_queue_retrying_one_class_goes_through_the_warning_in_three_page_loads_at_both_widths
    WIDTHS.each do |label, width, height, mobile|
      redis.call("DEL", "retry", "queue:default")
      seed_retries
      visit("/retries?view=groups") # load 1
      page.set_viewport(width: width, height: height, scale_factor: 1, mobile: mobile)
      count_loads
      row = page.css("#cross tbody tr").find { |tr| tr.text.include?("MailJob") && tr.at_css(%(a[href*="error=Net%3A%3AReadTimeout"])) }
      assert row, "a line for MailJob × Net::ReadTimeout at #{width} px"
      assert_includes row.text, "250"
      retry_all = row.at_css(%(a.button[href*="confirm=retry"])).scroll_into_view
      assert_operator retry_all.evaluate("this.getBoundingClientRect().right"), :<=, width, "the line's Retry on screen at #{width} px"
      screenshot("story-triage-table-#{label}")
      retry_all.click # load 2
      wait_for(message: "the confirmation at #{width} px") { page.at_css("#confirm-count") }
      assert_includes page.at_css("#confirm-count").text, "send to their queues now 250 jobs"
      assert_includes page.at_css("#unworked-warning").text, "default (250)"
      assert_equal true, in_view?("#confirm-all"), "the confirmation's button on screen at #{width} px"
      screenshot("story-triage-confirm-#{label}")
      page.at_css("#confirm-all").scroll_into_view.click # load 3: the POST and its redirect
      wait_for(message: "the notice at #{width} px") { page.at_css(".notice")&.text.to_s.include?("250 jobs sent") }
      wait_for(message: "the load event at #{width} px") { loads >= 2 }
      assert_equal 3, 1 + loads, "page loads from the grouped view to done at #{width} px"
      assert_equal 250, redis.call("LLEN", "queue:default")
      assert_equal 100, api.retries.size
      assert_equal 0, api.retries.count_matching(['"class":"MailJob"', '"error_class":"Net::ReadTimeout"'])
      assert_equal "notice", page.evaluate("document.activeElement.id"), "focus on the notice after the action at #{width} px"
      screenshot("story-triage-done-#{label}")
      assert_equal 2, loads, "no load after the last at #{width} px"
      assert_no_browser_problems
    end
  end

  # From the front page: the retries card's "By error and class" (which
  # class, which error, since when), then the line's "Retry now…" unfolds
  # the count and its button in the page: "Retry now: these 250".
  def test_from_the_front_page_retrying_one_class_of_timeouts_takes_two_page_loads
    seed_retries
    running_process("OtherJob") # a live process works "default": no warning to show first
    visit("/")
    count_loads
    click_to_load("#retries-grouped") # load 1
    row = page.css("#cross tbody tr").find { |tr| tr.text.include?("MailJob") && tr.at_css(%(a[href*="error=Net%3A%3AReadTimeout"])) }
    assert_includes row.text, "250"
    assert_equal 2, row.css("time[datetime]").size, "the line's first and last failure: since when"
    row.at_css("details.act-here summary").scroll_into_view.click
    wait_for(message: "the line's count unfolded") { row.at_css("details.act-here").property("open") }
    assert_includes row.at_css(".here-count").text, "send to their queues now 250 jobs"
    assert_equal 1, loads, "unfolding the line's Retry now… loads nothing"
    before = loads
    row.at_css(%(details.act-here button[value="retry"])).click # load 2: the POST and its redirect
    wait_for(message: "the notice") { loads > before && page.at_css(".notice")&.text.to_s.include?("250 jobs sent") }
    assert_equal 2, loads, "page loads from the front page to done"
    assert_equal 250, redis.call("LLEN", "queue:default")
    assert_equal 100, api.retries.size
    assert_equal 0, api.retries.count_matching(['"class":"MailJob"', '"error_class":"Net::ReadTimeout"'])
    assert_equal 50, api.retries.count_matching(['"class":"ReportJob"', '"error_class":"Net::ReadTimeout"'])
    assert_equal 50, api.retries.count_matching(['"class":"MailJob"', '"error_class":"ArgumentError"'])
    assert_no_browser_problems
  end

  def test_range_selection_checks_rows_n_to_m
    seed_retries
    visit("/retries?per_page=50")
    boxes = page.css(%(input[name="keys[]"]))
    boxes[2].click
    boxes[9].click(keys: [:shift])
    checked = page.evaluate(%(Array.prototype.map.call(document.querySelectorAll('input[name="keys[]"]'), function (b) { return b.checked; })))
    assert_equal (2..9).to_a, checked.each_index.select { |i| checked[i] }
    page.execute(%(document.querySelector("[data-range-from]").value = "20"; document.querySelector("[data-range-to]").value = "24";))
    page.at_css("[data-range-check]").click
    checked = page.evaluate(%(Array.prototype.map.call(document.querySelectorAll('input[name="keys[]"]'), function (b) { return b.checked; })))
    assert_equal (2..9).to_a + (19..23).to_a, checked.each_index.select { |i| checked[i] }
    page.at_css(%(#bulk button[value="delete"])).click # asks "the 13 checked"; the harness says OK
    wait_for(message: "the notice") { page.at_css(".notice")&.text.to_s.include?("13 jobs deleted") }
    assert_equal 337, api.retries.size
    assert_no_browser_problems
  end

  def running_process(klass)
    store = Deckhand.config.store
    identity = "phone-host:4242:abcdef"
    info = JSON.generate("hostname" => "phone-host", "pid" => 4242, "tag" => "", "concurrency" => 5, "queues" => ["default"],
      "labels" => [], "identity" => identity, "started_at" => Time.now.to_f, "version" => Deckhand::VERSION)
    work = Struct.new(:queue, :payload, :run_at)
    jid = "b" * 24
    payload = JSON.generate("class" => klass, "args" => [{"merchant_ids" => (1..40).to_a}], "jid" => jid, "queue" => "default")
    store.pipelined do |pipe|
      Deckhand::Store::Records::ProcessRecord.write(pipe, store.layout, identity, info: info, running: {"tid1" => work.new("default", payload, Time.now.to_i)},
        inflight: 1, rtt_us: 100, quiet: false, rss_kb: 120_000, ttl: 60)
    end
    redis.call("HSET", "it-#{jid}", "ex", "1", "c", "40", "rt", "2.5")
  end

  def test_each_page_keeps_its_key_field_and_action_on_a_phone
    seed_retries
    running_process(LONG_CLASS)
    entries = {"nightly" => {"cron" => "0 2 * * *", "timezone" => "America/New_York", "class" => "RecordJob", "queue" => "reports", "args" => ["daily"]}}
    Deckhand::Store::Features::PeriodicState.write_schedule(Deckhand.config.store, {"leader" => "phone-host:4242:abcdef", "entries" => entries})
    redis.call("HSET", "deckhand:periodic:entry:nightly", "next", Time.utc(2030, 1, 2, 7).to_i, "last_tick", Time.now.to_i - 60, "last_jid", "a" * 24)
    visit("/")
    WIDTHS.each do |label, width, height, mobile|
      page.set_viewport(width: width, height: height, scale_factor: 1, mobile: mobile)
      page.go_to("#{Deckhand::BrowserHarness.url}/busy")
      assert_equal true, in_view?(%(button[name="cancel"])), "Cancel on screen at #{width} px"
      assert_equal true, in_view?("table.running td.key strong"), "the job class on screen at #{width} px"
      assert_includes page.at_css("table.running td.key strong").text, LONG_CLASS
      full = page.evaluate(%(document.querySelector("table.running td.key strong").getBoundingClientRect().right <= window.innerWidth))
      assert full, "the whole class name is on screen at #{width} px"
      screenshot("story-busy-#{label}")
      page.go_to("#{Deckhand::BrowserHarness.url}/periodic")
      %w[td.next-run td.last-run button[value="enqueue"]].each do |selector|
        assert_equal true, in_view?(selector), "#{selector} on screen at #{width} px"
      end
      assert_includes page.at_css("td.next-run").text, "2030-01-02 02:00:00 EST"
      assert_includes page.at_css("td.next-run").text, "2030-01-02 07:00:00 UTC"
      screenshot("story-periodic-#{label}")
      page.go_to("#{Deckhand::BrowserHarness.url}/retries?view=groups")
      assert_equal true, in_view?("#cross td.key a"), "the class of a line on screen at #{width} px"
      page.css("#cross td.row-actions a.button, #cross td.row-actions summary, #by-error td.row-actions a.button").each_with_index do |button, i|
        right = button.evaluate("this.getBoundingClientRect().right")
        assert_operator right, :<=, width, "grouped view button #{i} on screen at #{width} px"
      end
      page.at_css("#cross details.act-here summary").scroll_into_view.click
      retry_here = page.at_css(%(#cross details.act-here[open] button[value="retry"]))
      assert_operator retry_here.evaluate("this.getBoundingClientRect().right"), :<=, width, "the unfolded Retry now on screen at #{width} px"
      assert_operator retry_here.evaluate("this.getBoundingClientRect().height"), :<, 40, "the unfolded Retry now on one line at #{width} px"
      screenshot("story-grouped-unfolded-#{label}")
      page.go_to("#{Deckhand::BrowserHarness.url}/")
      assert_equal true, in_view?("#retries-grouped"), "the front page's way to the grouped view on screen at #{width} px"
      screenshot("story-grouped-#{label}")
      page.go_to("#{Deckhand::BrowserHarness.url}/retries?class=MailJob&error=Net::ReadTimeout")
      assert_equal true, in_view?("td.row-actions button"), "a row's Retry on screen at #{width} px"
      screenshot("story-filtered-#{label}")
      page.screenshot(path: File.join(Deckhand::BrowserHarness::SCREENSHOTS, "story-filtered-#{label}-top.png")) # what the screen shows first
      %w[/busy /periodic /retries?view=groups /retries?class=MailJob&error=Net::ReadTimeout].each do |path|
        page.go_to("#{Deckhand::BrowserHarness.url}#{path}")
        assert_operator page.evaluate("document.documentElement.scrollWidth - window.innerWidth"), :<=, 0, "#{path} scrolls sideways at #{width} px"
      end
    end
    assert_no_browser_problems
  end

  def tab_until(limit)
    limit.times do |n|
      page.keyboard.type(:tab)
      return n + 1 if yield
    end
    nil
  end

  def test_the_keyboard_skips_to_the_content_and_keeps_its_place_after_an_action
    seed_retries
    visit("/retries")
    page.keyboard.type(:tab)
    assert_equal "Skip to content", page.evaluate("document.activeElement.textContent")
    page.keyboard.type(:enter)
    assert_equal "main", page.evaluate("document.activeElement.id")
    first_retry = %(document.activeElement === document.querySelector('#entries td.row-actions button[value="retry"]'))
    via_main = tab_until(40) { page.evaluate(first_retry) }
    assert via_main, "Tab reaches the first row's Retry from the main content"
    visit("/retries")
    page.keyboard.type(:tab)
    page.keyboard.type(:tab)
    assert_equal "Skip to the list", page.evaluate("document.activeElement.textContent")
    page.keyboard.type(:enter)
    assert_equal "entries", page.evaluate("document.activeElement.id")
    tabs = tab_until(40) { page.evaluate(first_retry) }
    assert tabs, "Tab reaches the first row's Retry from the list"
    assert_operator 3 + tabs, :<=, 8, "keys from the page's top to the first Retry (Tab, Tab, Enter on the skip link, then Tabs)"
    puts "\nkeys to the first row's Retry: #{3 + tabs} through the list's skip link, #{2 + via_main} through the content's" if ENV["VERBOSE_A11Y"]
    second = page.evaluate(%(document.querySelectorAll('#entries input[name="keys[]"]')[1].value))
    page.keyboard.type(:enter) # retry the first row
    wait_for(message: "the notice") { page.at_css(".notice")&.text.to_s.include?("1 job sent") }
    wait_for(message: "focus on the row now first") do
      page.evaluate(%(document.activeElement.tagName === "TR" && document.activeElement.querySelector('input[name="keys[]"]').value)) == second
    end
    page.keyboard.type(:tab)
    assert_equal second, page.evaluate("document.activeElement.value"), "Tab goes on into that row"
    assert_no_browser_problems
  end
end
