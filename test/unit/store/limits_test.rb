# frozen_string_literal: true

require "test_helper"
require_relative "../../support/web/web_helpers"

# The Limits page through Rack: limiter metrics filtered by name, throttles
# shown and changed, names escaped.
class WebLimitsTest < Minitest::Test
  include Deckhand::WebHelpers

  def test_limiters_are_listed_with_their_metrics_and_filtered_by_name
    Deckhand::Limiter.window("api-<b>", 1, :minute).within_limit { nil }
    assert_raises(Deckhand::Limiter::OverLimit) { Deckhand::Limiter.window("api-<b>", 1, :minute).within_limit { nil } }
    Deckhand::Limiter.bucket("erp", 5, :second).within_limit { nil }
    body = get("/limits").body
    assert_includes body, "api-&lt;b&gt;"
    refute_includes body, "api-<b>"
    assert_includes body, "erp"
    filtered = get("/limits?name=erp").body
    assert_includes filtered, "<td>erp</td>"
    refute_includes filtered, "api-&lt;b&gt;"
    assert_includes get("/limits?name=nothing").body, "No limiter whose name contains"
  end

  def test_throttles_are_shown_and_changed_at_run_time
    Deckhand.config.throttle = {"exports" => {concurrency: 3}}
    body = get("/limits").body
    assert_includes body, "exports"
    assert_includes body, "configuration"
    assert_redirect post("/limits", "queue" => "api", "action" => "set", "rate" => "20", "per" => "second"), "/limits"
    assert_equal({"rate" => 20, "per" => 1}, api.throttle("api").limit)
    assert_includes get("/limits").body, "20 per 1.0 s"
    assert_redirect post("/limits", "queue" => "exports", "action" => "remove"), "/limits"
    assert_nil api.throttle("exports").limit
  end

  def test_a_bad_throttle_is_refused_with_the_reason
    response = post("/limits", "queue" => "api", "action" => "set", "rate" => "fast")
    assert_equal 422, response.status
    assert_includes response.body, "rate must be a whole number"
    assert_equal({}, redis.call("HGETALL", "deckhand:throttles"))
  end

  def test_queue_pages_show_a_throttled_queue_with_its_use
    Deckhand.config.throttle = {"exports" => {concurrency: 3}}
    RecordJob.set(queue: "exports").perform_async(1)
    RecordJob.set(queue: "plain").perform_async(1)
    redis.call("HSET", "deckhand:throttle:exports", "~held", 2, "host:1:abc", 2)
    list = get("/queues").body
    assert_equal 1, list.scan("throttled · 2/3 running").size
    assert_includes get("/queues/exports").body, "throttled · 2/3 running"
    refute_includes get("/queues/plain").body, "throttled"
  end
end
