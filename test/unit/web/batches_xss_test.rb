# frozen_string_literal: true

require "test_helper"
require "deckhand/batch"
require_relative "../../support/web/web_helpers"

# Plants markup and quote-breaking strings in every batch field the Batches
# pages show and checks they come out as text.
class WebBatchesXssTest < Minitest::Test
  include Deckhand::WebHelpers

  HOSTILE = %q{</script><script>alert(1)</script>"'><img src=x onerror=alert(2)>}
  ESCAPED = CGI.escapeHTML(HOSTILE)

  def hostile_error
    klass = Class.new(StandardError)
    klass.define_singleton_method(:name) { "E#{HOSTILE}" }
    klass.new(HOSTILE)
  end

  # A batch (and a child) with hostile text everywhere, a failing job and a
  # dead one with a hostile jid, and a junk batch under a hostile id.
  def plant
    batch = Deckhand::Batch.new
    batch.description = HOSTILE
    batch.callback_queue = HOSTILE
    batch.on(:complete, "X#{HOSTILE}", HOSTILE => [HOSTILE, {HOSTILE => HOSTILE}])
    batch.on(:death, "X#{HOSTILE}")
    jids = batch.jobs do
      RecordJob.perform_async(HOSTILE)
      kid = Deckhand::Batch.new
      kid.description = HOSTILE
      kid.jobs { RecordJob.perform_async(1) }
    end
    tracker = Deckhand::Batch::Tracker.new(Deckhand.config)
    tracker.failure(batch.bid, {"jid" => jids.first, "class" => "X#{HOSTILE}", "retry_count" => HOSTILE}, hostile_error)
    keys = Deckhand::Store::Layout::PlainBatches
    info = {"class" => HOSTILE, "error_class" => HOSTILE, "error_message" => HOSTILE, "failed_at" => 1_700_000_000_000, "retry_count" => HOSTILE}
    redis.call("HSET", keys.failed(batch.bid), HOSTILE, JSON.generate(info))
    redis.call("SADD", keys.dead(batch.bid), HOSTILE)
    redis.call("HSET", keys.batch(HOSTILE), "description", HOSTILE, "created_at", "1700000000000", "total", "1", "parent", HOSTILE)
    redis.call("ZADD", keys::INDEX, 0, HOSTILE)
    batch
  end

  def assert_inert(body, where)
    refute body.include?("<script>alert"), "#{where}: a live script tag"
    refute body.include?("<img"), "#{where}: a live img tag"
    refute body.include?(%("'>)), "#{where}: a quote broke out of an attribute"
    refute body.include?("</script><"), "#{where}: a script element closed early"
  end

  def test_batch_pages_print_hostile_strings_as_text
    batch = plant
    enc = ERB::Util.url_encode(HOSTILE)
    ["/batches", "/batches/#{batch.bid}", "/batches/#{batch.bid}?page=#{enc}&per_page=#{enc}", "/batches?page=#{enc}"].each do |path|
      response = get(path)
      assert_equal 200, response.status, path
      assert_inert(response.body, path)
      assert_includes response.body, ESCAPED, path
    end
  end

  def test_each_planted_field_is_shown_escaped_where_it_appears
    batch = plant
    enc = ERB::Util.url_encode(HOSTILE)
    list = get("/batches").body
    assert_includes list, %(<a href="/batches/#{enc}">#{ESCAPED}</a>), "a junk batch id in a link"
    assert_includes list, %(child of <a href="/batches/#{enc}">#{ESCAPED}</a>), "its parent"
    page = get("/batches/#{batch.bid}").body
    assert_includes page, "<h2>#{ESCAPED} <span", "description"
    assert_includes page, "<code>X#{ESCAPED}#on_complete</code>", "callback class"
    assert_includes page, "<code>#{CGI.escapeHTML(JSON.generate(HOSTILE => [HOSTILE, {HOSTILE => HOSTILE}]))[0, 60]}", "callback options"
    assert_includes page, %(<a href="/queues/#{enc}">#{ESCAPED}</a>), "callback queue"
    assert_includes page, "<td>X#{ESCAPED}<div", "job class"
    assert_includes page, "<strong>E#{ESCAPED[0, 59]}", "error class, truncated"
    assert_includes page, "</strong>: #{ESCAPED}</td>", "error message"
    assert_includes page, %(href="/batches/#{batch.bid}/jobs/#{enc}?in=dead"), "a hostile jid in a link"
    assert_includes page, %(<div class="meta">#{ESCAPED}</div>), "a hostile jid shown"
  end

  def test_looking_for_a_hostile_jid_redirects_safely
    batch = plant
    response = get("/batches/#{batch.bid}/jobs/#{ERB::Util.url_encode(HOSTILE)}?in=#{ERB::Util.url_encode(HOSTILE)}")
    assert_redirect response, "/batches/#{batch.bid}", notice: "not_in_sets.0"
  end
end
