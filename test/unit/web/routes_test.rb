# frozen_string_literal: true

require "test_helper"
require_relative "../../support/web/web_helpers"

class WebRoutesTest < Minitest::Test
  include Deckhand::WebHelpers

  def seed
    Deckhand::Client.push("class" => "RecordJob", "args" => [1], "queue" => "mail/outbox")
    add_to("retry", retry_job("r" * 24), score: Time.now.to_f + 60)
    add_to("schedule", retry_job("s" * 24).except("error_class", "error_message"), score: Time.now.to_f + 600)
    add_to("dead", retry_job("d" * 24))
    redis.call("SET", "stat:processed", "77")
    tally = Deckhand::Store::Records::ExecutionMetrics::Tally.new
    tally.record("RecordJob", 4.0, false)
    Deckhand.config.store.pipelined { |pipe| Deckhand::Store::Records::ExecutionMetrics.flush(pipe, tally.take) }
  end

  def test_every_page_renders
    seed
    {
      "/" => "Throughput", "/busy" => "Processes", "/queues" => "mail/outbox", "/queues/mail%2Foutbox" => "RecordJob",
      "/retries" => "r" * 24, "/scheduled" => "s" * 24, "/dead" => "d" * 24, "/retries?q=boom" => "1 found",
      "/metrics" => "RecordJob", "/metrics/RecordJob" => "Execution time"
    }.each do |path, text|
      response = get(path)
      assert_equal 200, response.status, "#{path}: #{response.body[0, 300]}"
      assert_includes response.body, text, path
      assert_equal "text/html; charset=utf-8", response.headers["content-type"]
    end
  end

  def test_entry_pages_show_one_job_and_its_backtrace
    seed
    add_to("retry", retry_job("b" * 24, "error_backtrace" => Deckhand::Payload::Backtrace.compress(["app/x.rb:7:in `perform'"])))
    %w[retries scheduled dead].each do |set|
      jid = {"retries" => "r", "scheduled" => "s", "dead" => "d"}.fetch(set) * 24
      response = get("/#{set}/#{ERB::Util.url_encode(key_of(set.to_sym, jid))}")
      assert_equal 200, response.status
      assert_includes response.body, jid
    end
    body = get("/retries/#{key_of(:retries, "b" * 24)}").body
    assert_includes body, "app/x.rb:7:in `perform&#39;"
    assert_equal 404, get("/retries/1.5-#{"0" * 24}").status
  end

  def test_stats_json_feeds_the_live_chart
    seed
    response = get("/stats.json")
    assert_equal "application/json", response.headers["content-type"]
    stats = JSON.parse(response.body)
    assert_equal [77, 1, 1, 1, 1], stats.values_at("processed", "enqueued", "retries", "scheduled", "dead")
    assert_in_delta Time.now.to_f, stats["time"], 5
  end

  def test_unknown_paths_are_not_found
    ["/nope", "/queues/a/b", "/retries/x/y", "/assets/nope.js", "/assets/../web.rb"].each do |path|
      assert_equal 404, get(path).status, path
    end
  end

  def test_assets_are_served_with_long_caching
    response = get("/assets/charts.js")
    assert_equal 200, response.status
    assert_includes response.body, "DeckhandCharts"
    assert_equal "text/javascript; charset=utf-8", response.headers["content-type"]
    assert_includes response.headers["cache-control"], "immutable"
    assert_includes get("/").body, "/assets/charts.js?v=#{Deckhand::Web::Assets.digest("charts.js")}"
  end

  def test_head_answers_without_a_body
    response = Rack::MockRequest.new(web_app).request("HEAD", "/queues")
    assert_equal 200, response.status
    assert_empty response.body
  end

  def test_links_honour_the_mount_point
    seed
    body = Rack::MockRequest.new(web_app).get("/queues", "SCRIPT_NAME" => "/admin/jobs").body
    assert_includes body, 'href="/admin/jobs/queues/mail%2Foutbox"'
    assert_includes body, 'src="/admin/jobs/assets/deckhand.js?v='
  end

  def test_the_class_level_app_uses_the_default_config
    seed
    response = Rack::MockRequest.new(Deckhand::Web).get("/queues")
    assert_includes response.body, "mail/outbox"
  end

  def test_pages_are_bounded_whatever_the_query_says
    40.times { |i| add_to("dead", retry_job(format("%024d", i)), score: i) }
    assert_equal 25, get("/dead?per_page=100000").body.scan('name="keys[]"').size, "per_page falls back to 25"
    body = get("/dead?page=999999999999").body
    assert_equal 15, body.scan('name="keys[]"').size
    assert body.include?("000000000000000000000014"), "the page number is clamped to the last page"
    assert_equal 200, get("/dead?page=-3&from=-1&q=x").status
    assert_equal 200, get("/?days=100000&interval=0").status
    assert get("/?days=100000").body.include?('days=30" aria-current="page"'), "30 days when the choice is not offered"
    assert_equal 10, get("/dead?per_page=10").body.scan('name="keys[]"').size
  end

  def test_filter_text_is_bounded
    add_to("dead", retry_job("x" * 24))
    assert_equal 200, get("/dead?q=#{"a" * 10_000}").status
  end

  def test_long_arguments_are_truncated_in_lists_and_whole_in_details
    long = "z" * 5000
    Deckhand::Client.push("class" => "RecordJob", "args" => [long])
    add_to("dead", retry_job("l" * 24, "args" => [long]))
    queue = get("/queues/default").body
    assert_includes queue, %(<summary><code>&quot;#{"z" * 118}…</code></summary>), "truncated in the queue's list"
    assert_includes queue, %(<pre class="full-args">[\n  &quot;#{long}&quot;\n]</pre></details>), "whole once unfolded"
    refute get("/dead").body.include?(long), "truncated in the set"
    assert get("/dead/#{key_of(:dead, "l" * 24)}").body.include?(long), "whole in the details"
  end

  def test_redis_down_answers_503_not_a_stack_trace
    config = Deckhand::Config.new(redis: {url: "redis://:s3cret-pass@127.0.0.1:#{Deckhand::DevRedis.free_port}/0", connect_timeout: 0.2})
    response = Rack::MockRequest.new(Deckhand::Web.new(config: config)).get("/queues", "HTTP_ACCEPT" => "text/html")
    assert_equal 503, response.status
    assert_includes response.body, "<h2>Redis cannot be reached</h2>"
    assert_match %r{The dashboard reads <code>redis://127\.0\.0\.1:\d+/0</code>, and it does not answer: <span id="outage-reason">[^<]*refused}, response.body
    assert_includes response.body, "reload in a few seconds"
    assert_includes response.body, %(<a href="/retries">Retries</a>), "a way on, not a dead end"
    refute_includes response.body, %(action="/find"), "no search of a Redis that does not answer"
    refute_match(/Not here|Set REDIS_URL|s3cret/, response.body)
    assert_equal "no-store", response.headers["cache-control"]
    assert_equal "5", response.headers["retry-after"]
  end

  def test_redis_down_answers_a_scrape_with_a_line_of_text
    config = Deckhand::Config.new(redis: {url: "redis://127.0.0.1:#{Deckhand::DevRedis.free_port}/0", connect_timeout: 0.2})
    response = Rack::MockRequest.new(Deckhand::Web.new(config: config)).get("/metrics", "HTTP_ACCEPT" => "application/openmetrics-text;version=1.0.0,text/plain;q=0.5")
    assert_equal 503, response.status
    assert_equal "text/plain; charset=utf-8", response.headers["content-type"]
    assert_match %r{\ARedis cannot be reached: .*refused.* \(redis://127\.0\.0\.1:\d+/0\)\. Retry in 5 s\.\n\z}, response.body
  end

  def test_redis_down_answers_json_to_json
    config = Deckhand::Config.new(redis: {url: "redis://:s3cret-pass@127.0.0.1:#{Deckhand::DevRedis.free_port}/0", connect_timeout: 0.2})
    app = Deckhand::Web.new(config: config)
    [["/stats.json", "text/html"], ["/stats.json", "*/*"], ["/queues", "application/json"]].each do |path, accept|
      response = Rack::MockRequest.new(app).get(path, "HTTP_ACCEPT" => accept)
      assert_equal 503, response.status, path
      assert_equal "application/json", response.headers["content-type"], "#{path} #{accept}"
      body = JSON.parse(response.body)
      assert_equal "redis_unreachable", body["error"]
      assert_match %r{\ARedis cannot be reached: .*refused}, body["message"]
      assert_match %r{\Aredis://127\.0\.0\.1:\d+/0\z}, body["redis"]
      assert_equal 5, body["retry_after"]
      refute_includes response.body, "s3cret"
    end
  end
end
