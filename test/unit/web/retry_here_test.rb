# frozen_string_literal: true

require "test_helper"
require_relative "../../support/web/web_helpers"

# "Retries spiking: retry only those" in two page loads from the front page:
# the retries and dead figures link to their grouped view, and each error ×
# class line's "Retry now…" unfolds its count and button in the page, when
# nothing needs saying first (the whole set counted, every queue worked and
# running); otherwise it leads to the confirmation page, as before.
class WebRetryHereTest < Minitest::Test
  include Deckhand::WebHelpers

  def work(identity, queues)
    redis.call("SADD", "processes", identity)
    redis.call("HSET", identity, "info", JSON.generate("queues" => queues), "busy", "0", "beat", Time.now.to_f.to_s)
  end

  def seed
    5.times { |i| add_to("retry", retry_job(format("t%023d", i), "class" => "MailJob", "error_class" => "Net::ReadTimeout")) }
    2.times { |i| add_to("retry", retry_job(format("r%023d", i), "class" => "ReportJob", "error_class" => "Net::ReadTimeout")) }
  end

  def unfolded(body) = body.scan(%r{<details class="act-here">(.*?)</details>}m).flatten

  def hidden(form) = form.scan(/<input type="hidden" name="([^"]+)" value="([^"]*)">/).to_h

  def test_the_front_page_links_the_retries_and_dead_figures_to_their_grouped_view
    body = get("/").body
    assert_includes body, %(<a href="/retries?view=groups" id="retries-grouped">By error and class</a>)
    assert_includes body, %(<a href="/dead?view=groups" id="dead-grouped">By error and class</a>)
    assert_includes body, %(<a href="/retries">Retries</a>), "the plain list stays a click away"
  end

  def test_a_line_unfolds_its_count_and_a_form_that_retries_exactly_its_entries
    work("h:1:a", %w[default])
    seed
    body = get("/retries?view=groups").body
    mail, report = unfolded(body)
    assert_includes mail, "<summary class=\"button\">Retry now…</summary>"
    assert_includes mail, "send to their queues now 5 jobs</strong>: those of the 7 in retries with error Net::ReadTimeout, of class MailJob."
    assert_includes mail, %(<button name="action" value="retry">Retry now: these 5</button>)
    fields = hidden(mail)
    assert_equal %w[_csrf all class count error], fields.keys.sort
    assert_equal({"all" => "1", "class" => "MailJob", "error" => "Net::ReadTimeout", "count" => "5"}, fields.except("_csrf"))
    assert_equal "2", hidden(report)["count"]
    assert_includes body, %(href="/retries?class=MailJob&amp;error=Net%3A%3AReadTimeout&amp;confirm=delete">Delete…</a>), "the other actions keep their confirmation"
    response = post("/retries", fields.except("_csrf").merge("action" => "retry"))
    assert_redirect response, "/retries?class=MailJob&error=Net%3A%3AReadTimeout#entries", notice: "retried.5"
    assert_equal 5, redis.call("LLEN", "queue:default")
    assert_equal 2, api.retries.count_matching(['"class":"ReportJob"'])
  end

  def test_more_matches_at_the_post_than_the_line_counted_retry_nothing
    work("h:1:a", %w[default])
    seed
    fields = hidden(unfolded(get("/retries?view=groups").body).first).except("_csrf")
    add_to("retry", retry_job("n" * 24, "class" => "MailJob", "error_class" => "Net::ReadTimeout"))
    response = post("/retries", fields.merge("action" => "retry"))
    assert_redirect response, "/retries?class=MailJob&error=Net%3A%3AReadTimeout&confirm=retry", notice: "changed.0"
    assert_equal 8, redis.call("ZCARD", "retry")
  end

  def test_a_queue_no_process_works_sends_every_line_through_the_confirmation_and_its_warning
    seed
    body = get("/retries?view=groups").body
    assert_empty unfolded(body)
    assert_includes body, %(href="/retries?class=MailJob&amp;error=Net%3A%3AReadTimeout&amp;confirm=retry">Retry now…</a>)
  end

  def test_a_paused_queue_sends_every_line_through_the_confirmation
    work("h:1:a", %w[default mail])
    seed
    add_to("retry", retry_job("m" * 24, "queue" => "mail"))
    api.queue("mail").pause
    assert_empty unfolded(get("/retries?view=groups").body)
  end

  def test_a_read_only_user_gets_no_form
    work("h:1:a", %w[default])
    seed
    assert_empty unfolded(get("/retries?view=groups", app: web_app(authorize: ->(_env) { false })).body)
  end

  def test_the_unfolded_form_escapes_the_names_it_carries
    work("h:1:a", %w[default])
    add_to("retry", retry_job("x" * 24, "class" => "<script>alert(1)</script>", "error_class" => "\"><img src=x onerror=alert(2)>"))
    form = unfolded(get("/retries?view=groups").body).first
    refute_includes form, "<script>alert(1)"
    refute_includes form, "\"><img"
    assert_equal "&lt;script&gt;alert(1)&lt;/script&gt;", hidden(form)["class"]
  end
end
