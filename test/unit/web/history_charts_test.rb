# frozen_string_literal: true

require "test_helper"
require "cgi"
require_relative "../../support/web/web_helpers"

# The dashboard's live chart starts from the stored throughput of the period
# chosen; a queue's page charts its sampled depth and latency. Both say so
# plainly on a Redis that holds no history yet.
class WebHistoryChartsTest < Minitest::Test
  include Deckhand::WebHelpers

  def attribute(body, selector, name)
    tag = body[/<[^>]*#{Regexp.escape(selector)}[^>]*>/m] or flunk("no #{selector} in the page")
    CGI.unescapeHTML(tag[/\s#{name}="([^"]*)"/, 1] || flunk("no #{name} on #{selector}"))
  end

  def flush(now, count, failed)
    tally = Deckhand::Store::Records::ExecutionMetrics::Tally.new
    count.times { |i| tally.record("ReportJob", 4.0, i < failed) }
    Deckhand.config.store.pipelined { |pipe| Deckhand::Store::Records::ExecutionMetrics.flush(pipe, tally.take, now: now) }
  end

  def test_the_live_chart_starts_from_the_stored_minutes
    now = Time.at(Deckhand.config.store.clock.now)
    flush(now - 180, 9, 2)
    body = get("/").body
    points = JSON.parse(attribute(body, "data-live-chart", "data-history"))
    assert_equal 60, points.size
    assert_equal "60", attribute(body, "data-live-chart", "data-step")
    minute = ((now - 180).to_i / 60) * 60
    assert_equal [minute, 9, 2], points.find { |start, _, _| start == minute }
    assert_equal 9, points.sum { |_, processed, _| processed }
    assert_includes body, "jobs per minute, live every 5 s, UTC"
    refute_includes body, "data-no-history"
    %w[1h 4h 24h 72h].each { |period| assert_includes body, ">#{period}</a>" }
    assert_includes body, %(href="/?period=72h"), "the range is a plain link (a GET), no write"
  end

  def test_the_long_ranges_show_hours_and_keep_the_other_choices
    flush(Time.at(Deckhand.config.store.clock.now) - 7200, 4, 0)
    body = get("/?period=72h&days=7&interval=2").body
    assert_equal "3600", attribute(body, "data-live-chart", "data-step")
    assert_equal 72, JSON.parse(attribute(body, "data-live-chart", "data-history")).size
    assert_includes body, "jobs per hour, live every 2 s, UTC"
    assert_includes body, %(href="/?period=1h&amp;days=7&amp;interval=2")
    assert_includes body, %(href="/?days=30&amp;period=72h&amp;interval=2"), "the days' tabs keep the range"
    assert_equal "60", attribute(get("/?period=%3Cscript%3E").body, "data-live-chart", "data-step"), "an unknown range is the hour"
  end

  def test_a_redis_without_history_says_so
    body = get("/").body
    assert_equal 200, get("/").status
    assert_includes body, "Nothing recorded in this period yet"
    assert_includes body, "Nothing failed in this period."
    refute_includes body, "failures-chart"
    assert JSON.parse(attribute(body, "data-live-chart", "data-history")).all? { |_, processed, failed| processed.zero? && failed.zero? }
    page = get("/queues/mailers")
    assert_equal 200, page.status
    assert_includes page.body, "No samples yet: a running server samples every queue once a minute."
    refute_includes page.body, "depth-chart"
  end

  def test_the_queue_page_charts_its_samples
    minute = (Deckhand.config.store.clock.now / 60).floor
    Deckhand::Store::Records::QueueSamples.write(Deckhand.config.store, minute - 1, [["mailers", 17, 2.345]])
    Deckhand::Store::Records::QueueSamples.write(Deckhand.config.store, minute - 5, [["mailers", 3, 0.0]])
    body = get("/queues/mailers?period=4h").body
    series = JSON.parse(attribute(body, %(id="depth-chart"), "data-series"))
    assert_equal "Jobs waiting", series[0][0]
    assert_equal 240, series[0][1].size
    labels = JSON.parse(attribute(body, %(id="depth-chart"), "data-labels"))
    assert_equal 240, labels.size
    at = labels.index(Time.at((minute - 1) * 60).utc.strftime("%H:%M"))
    assert_equal [3, nil, nil, nil, 17], series[0][1][at - 4..at], "a point a minute; gaps where none was taken"
    latency = JSON.parse(attribute(body, %(id="latency-chart"), "data-series"))
    assert_equal 2.3, latency[0][1][at]
    assert_includes body, %(href="/queues/mailers?period=72h#queue-history")
  end

  def test_the_queue_pages_links_and_forms_keep_the_page_and_the_period
    Deckhand::Client.push_bulk("class" => "RecordJob", "args" => (1..60).to_a.zip, "queue" => "mailers")
    assert_includes get("/queues/mailers?period=4h&per_page=10").body, %(<a href="/queues/mailers?page=2&amp;per_page=10&amp;period=4h">2</a>), "the pager keeps the period"
    body = get("/queues/mailers?page=2&per_page=10&period=4h").body
    assert_includes body, %(<span class="here" aria-current="page">2</span>)
    assert_includes body, %(<a href="/queues/mailers?page=2&amp;per_page=10&amp;period=4h#queue-history" aria-current="page">4h</a>)
    assert_includes body, %(<a href="/queues/mailers?page=2&amp;per_page=10&amp;period=72h#queue-history">72h</a>), "a period tab keeps the page"
    assert_includes body, %(<a href="/queues/mailers?page=3&amp;per_page=10&amp;period=4h">3</a>)
    forms = body.scan(%r{<form method="post" action="/queues/mailers".*?</form>}m)
    assert_equal 11, forms.size, "the queue's pause form and a form per job"
    forms.each do |form|
      assert_includes form, %(<input type="hidden" name="page" value="2">)
      assert_includes form, %(<input type="hidden" name="period" value="4h">)
    end
    back = "/queues/mailers?page=2&per_page=10&period=4h"
    assert_redirect post("/queues/mailers", "action" => "pause", "page" => "2", "per_page" => "10", "period" => "4h"), back, notice: "paused.0"
    job = api.queue("mailers").jobs(page: 2, per_page: 10).first
    response = post("/queues/mailers", "action" => "delete", "jid" => job.jid, "position" => job.position.to_s, "page" => "2", "per_page" => "10", "period" => "4h")
    assert_redirect response, "#{back}#jobs", notice: "deleted.1"
    assert_includes follow(response).body, %(aria-current="page">4h</a>)
    plain = get("/queues/mailers?per_page=10&period=%3Cscript%3E").body
    assert_includes plain, %(<a href="/queues/mailers?page=2&amp;per_page=10">2</a>), "the hour, the default, and an unknown period stay out of the links"
    assert_includes plain, %(<a href="/queues/mailers?per_page=10&amp;period=1h#queue-history" aria-current="page">1h</a>)
    refute_includes plain, "%3Cscript"
  end

  def test_failures_by_error_class_are_charted_escaped
    store = Deckhand.config.store
    now = Time.at(store.clock.now)
    errors = {"Net::ReadTimeout" => 4, "<script>alert(1)</script>" => 3, "KeyError" => 2, "IOError" => 1, "RangeError" => 1}
    store.pipelined { |pipe| Deckhand::Store::Records::ErrorMetrics.flush(pipe, errors, now: now - 120, prefix: store.layout::METRICS) }
    body = get("/").body
    refute_includes body, "<script>alert"
    series = JSON.parse(attribute(body, %(id="failures-chart"), "data-series"))
    assert_equal ["Net::ReadTimeout", "<script>alert(1)</script>", "KeyError", "Other"], series.map(&:first)
    assert_equal [4, 3, 2, 2], series.map { |_, counts| counts.sum }
    assert_equal 60, JSON.parse(attribute(body, %(id="failures-chart"), "data-labels")).size
    assert_equal 24, JSON.parse(attribute(get("/?period=24h").body, %(id="failures-chart"), "data-labels")).size, "the throughput's period"
  end

  def test_a_queue_name_is_escaped_in_the_history_links
    name = %(<img src=x onerror="alert(1)">)
    Deckhand::Store::Records::QueueSamples.write(Deckhand.config.store, (Deckhand.config.store.clock.now / 60).floor, [[name, 1, 0.0]])
    body = get("/queues/#{ERB::Util.url_encode(name)}").body
    refute_includes body, "<img src=x"
    assert_includes body, "/queues/%3Cimg%20src%3Dx%20onerror%3D%22alert%281%29%22%3E?period=24h#queue-history"
    assert_equal [1], JSON.parse(attribute(body, %(id="depth-chart"), "data-series"))[0][1].compact
  end
end
