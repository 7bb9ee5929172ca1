# frozen_string_literal: true

require "test_helper"
require_relative "../../support/web/web_helpers"

# Plants markup and quote-breaking strings in every field the dashboard shows
# and checks each page prints them as text.
class WebXssTest < Minitest::Test
  include Deckhand::WebHelpers

  HOSTILE = %q{</script><script>alert(1)</script>"'><img src=x onerror=alert(2)>}
  ESCAPED = CGI.escapeHTML(HOSTILE)
  IDENTITY = "#{HOSTILE}:1:abc"

  def hostile_job(jid)
    {"class" => "X#{HOSTILE}", "args" => [HOSTILE, {HOSTILE => [HOSTILE]}], "jid" => jid, "queue" => HOSTILE,
     "retry" => true, "retry_count" => 1, "error_class" => "E#{HOSTILE}", "error_message" => HOSTILE,
     "error_backtrace" => Deckhand::Payload::Backtrace.compress([HOSTILE]), "created_at" => HOSTILE,
     "enqueued_at" => HOSTILE, "tags" => [HOSTILE], HOSTILE => HOSTILE}
  end

  def plant
    redis.call("SADD", "queues", HOSTILE)
    redis.call("LPUSH", "queue:#{HOSTILE}", JSON.generate(hostile_job("q" * 24)), HOSTILE)
    wrapped = {"class" => "Sidekiq::ActiveJob::Wrapper", "wrapped" => HOSTILE, "queue" => HOSTILE, "jid" => "w" * 24,
               "args" => [{"job_class" => HOSTILE, "arguments" => [HOSTILE]}]}
    redis.call("LPUSH", "queue:#{HOSTILE}", JSON.generate(wrapped))
    add_to("retry", hostile_job("r" * 24))
    add_to("schedule", hostile_job("s" * 24))
    add_to("dead", hostile_job("d" * 24))
    redis.call("ZADD", "dead", 1, HOSTILE) # not even JSON
    redis.call("SADD", "processes", IDENTITY)
    info = {"hostname" => HOSTILE, "pid" => HOSTILE, "tag" => HOSTILE, "labels" => [HOSTILE], "queues" => [HOSTILE],
            "version" => HOSTILE, "concurrency" => 5, "started_at" => Time.now.to_f}
    redis.call("HSET", IDENTITY, "info", JSON.generate(info), "busy", "1", "beat", Time.now.to_f.to_s, "quiet", "true", "rss", "1000")
    redis.call("HSET", "it-#{"b" * 24}", "ex", "1", "c", JSON.generate(HOSTILE), "rt", "1.5") # an iterable job's progress
    redis.call("HSET", "#{IDENTITY}:work", HOSTILE, JSON.generate("queue" => HOSTILE, "payload" => JSON.generate(hostile_job("b" * 24)), "run_at" => Time.now.to_i))
    tally = Deckhand::Store::Records::ExecutionMetrics::Tally.new
    tally.record(HOSTILE, 3.0, true)
    Deckhand.config.store.pipelined { |pipe| Deckhand::Store::Records::ExecutionMetrics.flush(pipe, tally.take) }
  end

  def pages
    enc = ERB::Util.url_encode(HOSTILE)
    ["/", "/busy", "/queues", "/queues/#{enc}", "/retries", "/scheduled", "/dead", "/metrics", "/metrics/#{enc}",
      "/retries?q=#{enc}", "/dead?q=#{enc}", "/queues/#{enc}?page=#{enc}&per_page=#{enc}", "/?days=#{enc}&interval=#{enc}",
      "/retries/#{ERB::Util.url_encode(key_of(:retries, "r" * 24))}", "/scheduled/#{ERB::Util.url_encode(key_of(:scheduled, "s" * 24))}",
      "/dead/#{ERB::Util.url_encode(key_of(:dead, "d" * 24))}", "/dead/#{ERB::Util.url_encode(api.dead.page(1, 5).find(&:corrupt?).key)}",
      "/retries?view=groups", "/dead?view=groups", "/retries?q=#{enc}&confirm=delete", "/dead?q=#{enc}&confirm=retry"]
  end

  def assert_inert(body, where)
    refute body.include?("<script>alert"), "#{where}: a live script tag"
    refute body.include?("<img"), "#{where}: a live img tag"
    refute body.include?(%("'>)), "#{where}: a quote broke out of an attribute"
    refute body.include?("</script><"), "#{where}: a script element closed early"
  end

  def test_every_page_prints_hostile_strings_as_text
    plant
    pages.each do |path|
      response = get(path)
      assert_equal 200, response.status, path
      assert_inert(response.body, path)
      assert response.body.include?(CGI.escapeHTML(HOSTILE[0, 30])), "#{path} shows the planted string, escaped"
    end
  end

  def test_each_planted_field_is_shown_escaped_where_it_appears
    plant
    retry_key = ERB::Util.url_encode(key_of(:retries, "r" * 24))
    detail = get("/retries/#{retry_key}").body
    assert_includes detail, "<strong>E#{ESCAPED}</strong>", "error class"
    assert_includes detail, %(<pre class="error-message">#{ESCAPED}</pre>), "error message"
    assert_includes detail, %(<pre class="backtrace">#{ESCAPED}</pre>), "backtrace"
    assert_includes detail, "X#{ESCAPED}", "class"
    busy = get("/busy").body
    assert_includes busy, "<strong>#{ESCAPED}:#{ESCAPED}</strong>", "hostname and pid"
    assert_includes busy, %(<span class="badge">#{ESCAPED}</span>), "tag and labels"
    assert_includes busy, %(name="identity" value="#{ESCAPED}:1:abc"), "identity in a form field"
    queue = get("/queues/#{ERB::Util.url_encode(HOSTILE)}").body
    assert_includes queue, ESCAPED, "wrapped class"
    assert_includes get("/queues").body, %(href="/queues/#{ERB::Util.url_encode(HOSTILE)}"), "queue name in a link"
    assert_includes get("/retries?q=#{ERB::Util.url_encode(HOSTILE)}").body, %(value="#{ESCAPED}"), "filter echoed"
  end

  def test_acting_on_hostile_entries_works
    plant
    %w[quiet stop].each { |signal| assert_equal 303, post("/busy", "signal" => signal, "identity" => IDENTITY).status }
    assert_equal %w[TERM TSTP], redis.call("LRANGE", "#{IDENTITY}-signals", 0, -1)
    assert_equal 303, post("/queues/#{ERB::Util.url_encode(HOSTILE)}", "action" => "delete", "jid" => "q" * 24, "position" => "2").status
    assert_equal 2, redis.call("LLEN", "queue:#{HOSTILE}")
    corrupt = api.dead.page(1, 5).find(&:corrupt?)
    assert_equal 303, post("/dead/#{ERB::Util.url_encode(corrupt.key)}", "action" => "delete").status
    assert_nil api.dead.page(1, 5).find(&:corrupt?)
  end

  def test_dead_ends_print_a_hostile_jid_as_text
    plant
    enc = ERB::Util.url_encode(HOSTILE)
    # The planted jobs carry the text as an argument: /find lists them.
    [["/find?jid=#{enc}", 200], ["/retries/1.5-#{enc}", 404]].each do |path, status|
      response = get(path)
      assert_equal status, response.status, path
      assert_inert(response.body, path)
      assert_includes response.body, %(name="jid" value="#{ESCAPED}"), path
    end
  end
end
