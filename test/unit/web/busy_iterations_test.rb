# frozen_string_literal: true

require "test_helper"
require_relative "../../support/web/web_helpers"
require_relative "../../support/iterable/iterable_helper"

# The Busy page shows how far each running iterable job has come.
class WebBusyIterationsTest < Minitest::Test
  include Deckhand::WebHelpers
  include IterableTestSetup

  def test_a_running_iterable_job_shows_its_run_steps_cursor_and_runtime
    jid = "0123456789abcdef0123abcd"
    redis.call("HSET", "it-#{jid}", "ex", "1", "c", "40", "rt", "12.25", "dh_steps", "1040")
    Deckhand::Client.push("class" => "IterableJobs::GatedJob", "args" => [45], "jid" => jid)
    IterableJobs.open_gate(39) # item 40 waits
    with_server(iterable_config) do
      wait_for(message: "the resumed run's first save") { redis.call("HGET", "it-#{jid}", "ex") == "2" }
      page = wait_for(message: "the job on the Busy page") { (body = get("/busy").body).include?(jid) && body }
      assert_match(%r{run 2 · 1,040 steps · cursor <code>40</code> · 12\.\d s}, page)
      IterableJobs.open_gate(45)
      wait_for(message: "the job to complete") { IterableJobs.callbacks.include?("complete") }
    end
    assert_equal (40...45).to_a, IterableJobs.ledger
  end

  def test_the_cancel_button_cancels_a_running_iterable_job
    jid = IterableJobs::SlowStepJob.perform_async(1000) # 20 s of steps; saves every 5 s
    with_server(iterable_config) do
      page = wait_for(message: "the job on the Busy page") { (body = get("/busy").body).include?(jid) && body }
      assert_includes page, %(<button name="cancel" value="#{jid}")
      assert_redirect post("/busy", "cancel" => jid), "/busy", notice: "cancelled.0"
      refute_nil redis.call("HGET", "it-#{jid}", "cancelled")
      wait_for(message: "on_cancel", timeout: 15) { IterableJobs.callbacks.include?("cancel") }
    end
    assert_equal %w[start stop cancel], IterableJobs.callbacks
    assert_equal 0, redis.call("EXISTS", "it-#{jid}")
  end

  def test_cancel_refuses_what_cannot_be_a_jid
    assert_equal 404, post("/busy", "cancel" => "it-x y").status
    assert_empty redis.call("KEYS", "it-*")
  end
end
