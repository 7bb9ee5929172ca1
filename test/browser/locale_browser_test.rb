# frozen_string_literal: true

require "test_helper"
require "deckhand/api"
require "deckhand/workflow"
require_relative "browser_harness"

# The dashboard in Arabic (right to left) and German, in headless Chromium
# against `deckhand web`, at 1280 and 390 px, light and dark: the page's
# language and direction, the header laid out from the right in Arabic, no
# sideways scroll, counters refreshed with the language's separators, the
# charts' series named in the language, a queue's page, Busy, the picker, and
# a workflow's page in Arabic on a phone. Screenshots land in
# tmp/screenshots/locale-*.png.
class LocaleBrowserTest < Minitest::Test
  include Deckhand::BrowserHarness

  VIEWS = [["desktop", 1280, 900, false, "light"], ["desktop-dark", 1280, 900, false, "dark"],
    ["phone", 390, 844, true, "light"], ["phone-dark", 390, 844, true, "dark"]].freeze

  def teardown
    # One Chromium serves every browser test: the language picked here must not follow them.
    page&.cookies&.clear
    close_page
    super
  end

  def go(path) = page.go_to("#{Deckhand::BrowserHarness.url}#{path}")

  def each_view(first_path)
    visit(first_path)
    VIEWS.each do |label, width, height, mobile, scheme|
      page.set_viewport(width: width, height: height, scale_factor: 1, mobile: mobile)
      page.command("Emulation.setEmulatedMedia", features: [{name: "prefers-color-scheme", value: scheme}])
      yield label, width
    end
    assert_no_browser_problems
  end

  def no_sideways_scroll(path, width)
    assert_operator page.evaluate("document.documentElement.scrollWidth - window.innerWidth"), :<=, 0, "#{path} scrolls sideways at #{width} px"
  end

  def left_of(selector) = page.evaluate("document.querySelector(#{JSON.generate(selector)}).getBoundingClientRect().left")

  def some_work
    redis.call("SET", "stat:processed", "1234567")
    Deckhand::Client.push_bulk("class" => "MailJob", "args" => (1..1500).to_a.zip, "queue" => "mail")
    job = {"class" => "MailJob", "args" => [1], "jid" => "a" * 24, "queue" => "mail", "retry" => true, "retry_count" => 1,
           "error_class" => "Net::ReadTimeout", "error_message" => "timed out", "failed_at" => Time.now.to_f - 300}
    redis.call("ZADD", "retry", Time.now.to_f + 600, JSON.generate(job))
    identity = "worker-1:42:a1"
    info = {"hostname" => "worker-1", "pid" => 42, "identity" => identity, "queues" => %w[reports], "concurrency" => 10,
            "capsules" => {"default" => {"concurrency" => 10, "mode" => "strict", "queues" => %w[reports]}}}
    redis.call("SADD", "processes", identity)
    redis.call("HSET", identity, "info", JSON.generate(info), "busy", "1", "beat", Time.now.to_f.to_s)
    work = {"queue" => "reports", "payload" => job.merge("jid" => "0b" * 12, "queue" => "reports"), "run_at" => Time.now.to_f - 75}
    redis.call("HSET", "#{identity}:work", "t1", JSON.generate(work))
  end

  def test_arabic_reads_right_to_left_at_every_size
    some_work
    each_view("/?locale=ar&interval=1") do |label, width|
      go("/?interval=1")
      assert_equal ["ar", "rtl"], page.evaluate("[document.documentElement.lang, document.documentElement.dir]")
      assert_equal "لوحة المتابعة", page.at_css(".sections a[aria-current=page]").text
      assert_operator left_of(".brand"), :>, width / 2, "the brand starts the header on the right at #{width} px"
      assert_operator left_of(".sections a:nth-child(1)"), :>, left_of(".sections a:nth-child(2)"), "the tabs run right to left at #{width} px" if width > 400
      assert_equal "1,234,567", page.at_css('[data-stat="processed"]').text
      assert_equal "المعالَجة, الفاشلة", page.evaluate(%{document.querySelector("#live-chart svg").getAttribute("aria-label")})
      assert_equal true, in_view?(".locale-picker select"), "the picker on screen at #{width} px"
      no_sideways_scroll("/", width)
      screenshot("locale-ar-dashboard-#{label}")
      go("/retries")
      assert_includes page.at_css("#entries time, table time").text, "بعد"
      assert_equal "end", page.evaluate(%{getComputedStyle(document.querySelector("td.num, th.num") || document.body).textAlign}) if page.at_css("td.num, th.num")
      no_sideways_scroll("/retries", width)
      screenshot("locale-ar-retries-#{label}")
      go("/queues/mail")
      assert_equal "الطابور mail", page.at_css("main h2").text.split(" ").first(2).join(" ")
      assert_equal true, in_view?(".queue-state.bad"), "the warning on screen at #{width} px"
      no_sideways_scroll("/queues/mail", width)
      screenshot("locale-ar-queue-#{label}")
      go("/busy")
      assert_equal "قيد التشغيل", page.at_css(".sections a[aria-current=page]").text
      ["table.processes td.key", "table.running td.key"].each { |cell| assert_equal true, in_view?(cell), "#{cell} on screen at #{width} px" }
      no_sideways_scroll("/busy", width)
      screenshot("locale-ar-busy-#{label}")
    end
  end

  def test_a_workflow_in_arabic_on_a_phone
    flow = Deckhand::Workflow.new("nightly")
    root = flow.add(RecordJob, 1)
    flow.add_many(RecordJob, (1..8).zip, after: root)
    flow.push
    Deckhand::Workflow.ops(Deckhand.config).step(flow.id, "r", root.jid)
    visit("/workflows/#{flow.id}?locale=ar")
    page.set_viewport(width: 390, height: 844, scale_factor: 1, mobile: true)
    go("/workflows/#{flow.id}")
    assert_equal ["ar", "rtl"], page.evaluate("[document.documentElement.lang, document.documentElement.dir]")
    assert_equal "قيد التشغيل", page.at_css("#workflow-state").text
    assert_equal "الخطوات: 9، المستويات: 2", page.evaluate(%{document.querySelector("svg.step-graph").getAttribute("aria-label")})
    assert_includes page.at_css("svg.step-graph .more").text, "+2 أخرى"
    assert_equal true, in_view?(".graph"), "the graph's frame fits; the graph scrolls inside it"
    assert_equal true, in_view?("svg.step-graph a.step"), "the graph drawn left to right shows its first step, not its far end"
    no_sideways_scroll("/workflows/#{flow.id}", 390)
    screenshot("locale-ar-workflow-phone")
    assert_no_browser_problems
  end

  def test_german_counters_refresh_with_german_separators_and_the_picker_switches
    some_work
    each_view("/?locale=de&interval=1") do |label, width|
      go("/?interval=1")
      assert_equal ["de", "ltr"], page.evaluate("[document.documentElement.lang, document.documentElement.dir]")
      assert_equal "1.234.567", page.at_css('[data-stat="processed"]').text
      assert_operator left_of(".brand"), :<, width / 2
      redis.call("SET", "stat:processed", "7654321")
      wait_for(message: "the counter refreshed at #{width} px") { page.at_css('[data-stat="processed"]').text == "7.654.321" }
      redis.call("SET", "stat:processed", "1234567")
      no_sideways_scroll("/", width)
      screenshot("locale-de-dashboard-#{label}")
      go("/queues")
      assert_equal "Warteschlangen", page.at_css(".sections a[aria-current=page]").text
      assert_equal "1.500", page.at_css("td.num").text
      no_sideways_scroll("/queues", width)
      screenshot("locale-de-queues-#{label}")
    end
    go("/queues?interval=2")
    page.evaluate(%{document.querySelector(".locale-picker select").value = "he"})
    page.at_css(".locale-picker button").click
    wait_for(message: "the page in Hebrew") { page.evaluate("document.documentElement.lang") == "he" }
    assert_equal "/queues?interval=2&locale=he", URI(page.current_url).request_uri
    assert_equal "rtl", page.evaluate("document.documentElement.dir")
    go("/busy")
    assert_equal "he", page.evaluate("document.documentElement.lang"), "the choice is kept for the next pages"
  end
end
