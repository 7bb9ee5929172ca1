# frozen_string_literal: true

require "test_helper"
require "deckhand/api"
require_relative "browser_harness"

# Cancelling a running job from the Busy page in a real Chromium: the button
# posts the page's CSRF-checked form, the notice says the cancel was sent, and
# the job (one that never checks cancelled?) is interrupted after its grace
# period and recorded as cancelled.
class CancelBrowserTest < Minitest::Test
  include Deckhand::BrowserHarness

  # Never asks whether it was cancelled.
  class StuckJob
    include Deckhand::Job

    def perform = loop { sleep 0.05 }
  end

  def teardown
    close_page
    super
  end

  def test_cancel_a_running_job_from_the_busy_page
    config = new_config(heartbeat_interval: 0.1, cancel_grace: 0.5)
    jid = StuckJob.perform_async
    with_server(config) do
      wait_for(message: "the job running") { Deckhand::API.new(config).running.any? { |work| work.job.jid == jid } }
      visit("/") # a stuck job: stop it, from the front page
      count_loads
      click_to_load(%(nav.sections a[href$="/busy"]))
      screenshot("busy-cancel")
      click_to_load(%(button[name="cancel"][value="#{jid}"])) # asks first; the harness says OK
      wait_for(message: "the notice") { page.at_css(".notice")&.text&.include?("Cancel sent") }
      assert_equal 2, loads, "page loads from the front page to the cancel sent"
      wait_for(message: "the job cancelled") { Deckhand::API.new(config).cancellation(jid) }
      assert_no_browser_problems
    end
    assert_equal "running", Deckhand::API.new.cancellation(jid).where
    assert_equal [0, 0], [redis.call("ZCARD", "retry"), redis.call("LLEN", "queue:default")]
  end
end
