# frozen_string_literal: true

require "test_helper"
require "erb"
require_relative "../../support/web/web_helpers"

# The Busy page's Cancel button stops any running job (docs/cancelling.md),
# through the same CSRF-checked form as its other buttons; the job is then
# shown as cancelling until it stops.
class WebBusyCancelTest < Minitest::Test
  include Deckhand::WebHelpers

  # Holds its thread until it sees its cancel.
  class WaitingJob
    include Deckhand::Job

    def perform = (sleep 0.01 until cancelled?)
  end

  def test_the_cancel_button_stops_a_running_job
    jid = WaitingJob.perform_async
    with_server(new_config(heartbeat_interval: 0.1)) do
      page = wait_for(message: "the job on the Busy page") { (body = get("/busy").body).include?(jid) && body }
      assert_includes page, %(<button name="cancel" value="#{jid}")
      assert_redirect post("/busy", "cancel" => jid), "/busy", notice: "cancelled.0"
      wait_for(message: "the job cancelled") { Deckhand::API.new.cancellation(jid) }
    end
    assert_equal "running", Deckhand::API.new.cancellation(jid).where
    assert_equal 0, redis.call("ZCARD", "retry")
  end

  def test_a_job_that_left_its_queue_meanwhile_is_taken_out_or_gone
    jid = WaitingJob.perform_in(600)
    assert_redirect post("/busy", "cancel" => jid), "/busy", notice: "cancelled_waiting.0"
    assert_equal 0, redis.call("ZCARD", "schedule")
    assert_redirect post("/busy", "cancel" => jid), "/busy", notice: "gone.0"
  end

  def test_a_running_job_already_cancelled_shows_as_cancelling
    Deckhand::Store::Jobs::Cancellations.mark(Deckhand.config.store, "x" * 24, grace: nil, at: 0)
    redis.call("SADD", "processes", "host:1:abc")
    redis.call("HSET", "host:1:abc", "info", JSON.generate("hostname" => "host", "concurrency" => 1, "queues" => ["default"]), "beat", Time.now.to_f.to_s)
    redis.call("HSET", "host:1:abc:work", "t1", JSON.generate("queue" => "default", "payload" => {"jid" => "x" * 24, "class" => "WaitingJob", "args" => []}, "run_at" => Time.now.to_i))
    page = get("/busy").body
    assert_includes page, "x" * 24
    assert_includes page, %(<span class="badge warn">cancelling</span>)
    refute_includes page, %(<button name="cancel" value="#{"x" * 24}")
  end

  def test_a_cross_site_cancel_is_refused
    jid = WaitingJob.perform_in(600)
    assert_equal 403, post_from("/busy", {"cancel" => jid}, site: "cross-site").status
    assert_equal 403, post_from("/busy", {"cancel" => jid}, site: nil).status, "no token"
    assert_equal 1, redis.call("ZCARD", "schedule")
  end

  def test_a_scheduled_or_retrying_jobs_page_cancels_it
    jid = WaitingJob.perform_in(600)
    key = key_of(:scheduled, jid)
    page = get("/scheduled/#{ERB::Util.url_encode(key)}").body
    assert_includes page, %(<button name="action" value="cancel")
    assert_redirect post("/scheduled/#{ERB::Util.url_encode(key)}", "action" => "cancel"), "/scheduled", notice: "cancelled_waiting.0"
    assert_equal "schedule", api.cancellation(jid).where
    add_to("dead", retry_job("d" * 24))
    refute_includes get("/dead/#{ERB::Util.url_encode(key_of(:dead, "d" * 24))}").body, %(value="cancel"), "a dead job does not run: Delete is enough"
  end
end
