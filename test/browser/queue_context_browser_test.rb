# frozen_string_literal: true

require "test_helper"
require "deckhand/api"
require_relative "browser_harness"

# Context where the on-call reader is, in headless Chromium against
# `deckhand web`: the Queues list, a queue's page and the jid search's "not
# here" page say which queues are paused and which no process works, and
# retrying jobs into a paused queue warns with the count, on the
# confirmation page and on the notice. Screenshots land in tmp/screenshots/.
class QueueContextBrowserTest < Minitest::Test
  include Deckhand::BrowserHarness

  def teardown
    close_page
    super
  end

  def api = Deckhand::API.new(Deckhand.config)

  def failed(jid, queue)
    {"class" => "ReportJob", "args" => [jid], "jid" => jid, "queue" => queue, "retry" => true, "retry_count" => 1,
     "error_class" => "Net::ReadTimeout", "error_message" => "timed out", "failed_at" => Deckhand::Payload.now}
  end

  # One live process works default and mail; mail is paused; orphan has no process.
  def seed
    redis.call("SADD", "processes", "worker-1:42:abc")
    redis.call("HSET", "worker-1:42:abc", "info", JSON.generate("hostname" => "worker-1", "pid" => 42, "queues" => %w[default mail]),
      "busy", "0", "beat", Time.now.to_f.to_s)
    %w[default mail orphan].each { |queue| Deckhand::Client.push("class" => "ReportJob", "args" => [1], "queue" => queue) }
    api.queue("mail").pause
    now = Time.now.to_f
    2.times { |i| redis.call("ZADD", "retry", now + i, JSON.generate(failed(format("m%023d", i), "mail"))) }
    redis.call("ZADD", "retry", now + 5, JSON.generate(failed("d#{"0" * 23}", "default")))
  end

  def row(queue) = page.css("table tbody tr").find { |tr| tr.at_css("td a")&.text == queue }&.text.to_s

  def test_paused_and_unworked_queues_are_said_where_the_user_looks
    seed
    visit("/queues")
    assert_includes row("mail"), "paused"
    refute_includes row("mail"), "no process works it"
    assert_includes row("orphan"), "no process works it"
    refute_match(/paused|no process/, row("default"))
    screenshot("queues-context")
    page.css("table tbody tr td a").find { |a| a.text == "orphan" }.click
    wait_for(message: "the orphan queue's page") { page.at_css(".queue-state") }
    assert_includes page.at_css(".queue-state").text, "No live process works this queue"
    assert_includes page.at_css(".queue-state code").text, "deckhand -q orphan"
    assert_no_browser_problems
    input = page.at_css(%(form.find input[name="jid"]))
    input.focus.type("0123456789abcdef01234567", :enter)
    wait_for(message: "the not-here page") { page.at_css("#stuck-queues") }
    stuck = page.at_css("#stuck-queues").text
    assert_includes stuck, "mail (1 job)"
    assert_includes stuck, "orphan (1 job)"
    refute_includes stuck, "default"
    screenshot("find-not-here-context")
    # The not-here page answers 404 on purpose; Chromium logs that, and nothing else may appear.
    assert_equal ["log error: Failed to load resource: the server responded with a status of 404 (Not Found)"], @problems.uniq
  end

  # The same answers at 390 px: each state and the warning's action on
  # screen, and no page wider than the phone.
  def test_the_context_stays_on_screen_on_a_phone
    seed
    visit("/")
    page.set_viewport(width: 390, height: 844, scale_factor: 1, mobile: true)
    page.go_to("#{Deckhand::BrowserHarness.url}/queues")
    assert_includes row("mail"), "paused"
    assert_includes row("orphan"), "no process works it"
    assert_equal true, in_view?("table tbody tr td a"), "a queue's name on screen"
    assert_operator page.evaluate("document.documentElement.scrollWidth - window.innerWidth"), :<=, 0, "/queues scrolls sideways"
    screenshot("queues-context-phone")
    page.go_to("#{Deckhand::BrowserHarness.url}/queues/orphan")
    assert_equal true, in_view?(".queue-state"), "the unworked notice on screen"
    page.go_to("#{Deckhand::BrowserHarness.url}/retries?q=Net::ReadTimeout&confirm=retry")
    wait_for(message: "the confirmation page") { page.at_css("#confirm-count") }
    assert_equal true, in_view?("#paused-warning"), "the paused warning on screen"
    assert_equal true, in_view?("#confirm-all"), "the confirmation's button on screen"
    screenshot("retry-confirm-paused-phone")
  end

  def test_retrying_into_a_paused_queue_warns_first_and_after
    seed
    visit("/retries?q=Net::ReadTimeout&confirm=retry")
    wait_for(message: "the confirmation page") { page.at_css("#confirm-count") }
    assert_includes page.at_css("#paused-warning").text, "2 jobs of these would go to a paused queue and wait there until it is resumed: mail (2)"
    screenshot("retry-confirm-paused")
    page.at_css("#confirm-all").scroll_into_view.click
    wait_for(message: "the notice") { page.at_css(".notice")&.text.to_s.include?("3 jobs sent") }
    assert_includes page.at_css(".notice").text, "Warning: 2 of them went to a paused queue and wait there until it is resumed."
    assert_equal 3, api.queue("mail").size
    assert_no_browser_problems
  end

  # One job's page says where Retry now would send it before the click, at
  # both widths, with the button and the warning on screen.
  def test_a_jobs_page_warns_before_the_retry
    seed
    redis.call("ZADD", "retry", Time.now.to_f + 9, JSON.generate(failed("o#{"0" * 23}", "orphan")))
    [[1280, 800], [390, 844]].each do |width, height|
      visit("/")
      page.set_viewport(width: width, height: height, scale_factor: 1, mobile: width < 500)
      page.go_to("#{Deckhand::BrowserHarness.url}/retries/#{api.retries.find_jid("m#{"0" * 23}").key}")
      wait_for(message: "the job's page") { page.at_css("#paused-warning") }
      assert_includes page.at_css("#paused-warning").text, "this job's queue, mail, is paused: Retry now sends the job there"
      assert_equal [true, true], [in_view?("#paused-warning"), in_view?(%(button[value="retry"]))], "warning and button on screen at #{width} px"
      screenshot("job-retry-paused-#{width}")
      page.go_to("#{Deckhand::BrowserHarness.url}/retries/#{api.retries.find_jid("o#{"0" * 23}").key}")
      wait_for(message: "the orphan job's page") { page.at_css("#unworked-warning") }
      assert_includes page.at_css("#unworked-warning").text, "no live process works this job's queue, orphan"
      assert_equal [true, true], [in_view?("#unworked-warning"), in_view?(%(button[value="retry"]))], "warning and button on screen at #{width} px"
      assert_operator page.evaluate("document.documentElement.scrollWidth - window.innerWidth"), :<=, 0, "the job's page scrolls sideways at #{width} px"
      screenshot("job-retry-unworked-#{width}")
    end
    assert_no_browser_problems
  end
end
