# frozen_string_literal: true

require "test_helper"
require_relative "../../support/web/web_helpers"

# Before a retry, where the user confirms it: one job's page and a filter's
# confirmation say when the jobs would wait in a paused queue or in a queue
# no live process works.
class WebRetryWarningTest < Minitest::Test
  include Deckhand::WebHelpers

  def work(identity, queues)
    redis.call("SADD", "processes", identity)
    redis.call("HSET", identity, "info", JSON.generate("queues" => queues), "busy", "0", "beat", Time.now.to_f.to_s)
  end

  def warnings(body) = body.scan(%r{<p class="unworked (?:paused|unworked)-warning"[^>]*>(.*?)</p>}m).flatten

  def test_a_jobs_page_warns_of_its_paused_queue
    work("h:1:a", %w[default mail])
    api.queue("mail").pause
    add_to("retry", retry_job("a" * 24, "queue" => "mail"))
    page = get("/retries/#{key_of(:retries, "a" * 24)}").body
    assert_equal ["Warning: this job&#39;s queue, mail, is paused: Retry now sends the job there to wait until the queue is resumed."], warnings(page)
    assert_operator page.index("paused-warning"), :<, page.index("<table class=\"facts\">"), "above the job's facts, beside the buttons"
  end

  def test_a_jobs_page_warns_of_a_queue_no_process_works
    work("h:1:a", %w[default])
    add_to("schedule", retry_job("a" * 24, "queue" => "<b>exports</b>"), score: Time.now.to_f + 60)
    page = get("/scheduled/#{key_of(:scheduled, "a" * 24)}").body
    assert_equal ["Warning: no live process works this job&#39;s queue, &lt;b&gt;exports&lt;/b&gt;: Enqueue now sends the job there to wait until " \
      "a process is started with it (<code>deckhand -q \\&lt;b\\&gt;exports\\&lt;/b\\&gt;</code>)."], warnings(page)
  end

  def test_a_jobs_page_in_a_worked_running_queue_says_nothing
    work("h:1:a", %w[default])
    add_to("dead", retry_job("a" * 24))
    page = get("/dead/#{key_of(:dead, "a" * 24)}").body
    assert_includes page, "Retry now"
    assert_empty warnings(page)
  end

  def test_a_read_only_user_is_not_told_what_a_button_would_do
    add_to("retry", retry_job("a" * 24, "queue" => "mail"))
    key = key_of(:retries, "a" * 24)
    assert_equal 1, warnings(get("/retries/#{key}").body).size, "no process works mail"
    read_only = web_app(authorize: ->(_env) { false })
    assert_empty warnings(get("/retries/#{key}", app: read_only).body)
  end

  def test_the_confirmation_counts_jobs_bound_for_paused_and_unworked_queues
    work("h:1:a", %w[default mail])
    api.queue("mail").pause
    add_to("retry", retry_job("a" * 24, "queue" => "mail"))
    add_to("retry", retry_job("b" * 24, "queue" => "orphan"))
    add_to("retry", retry_job("c" * 24, "queue" => "orphan"))
    add_to("retry", retry_job("d" * 24))
    confirm = get("/retries?q=boom&confirm=retry").body
    assert_equal ["Warning: 1 job of these would go to a paused queue and wait there until it is resumed: mail (1).",
      "Warning: 2 jobs of these would go to a queue no live process works and wait there until a process is started with it: orphan (2)."], warnings(confirm)
    assert_operator confirm.index("unworked-warning"), :<, confirm.index("confirm-all"), "said before the button"
  end

  def test_no_warning_when_every_queue_is_worked_and_running
    work("h:1:a", %w[default])
    add_to("retry", retry_job("a" * 24))
    assert_empty warnings(get("/retries?q=boom&confirm=retry").body)
    assert_empty warnings(get("/retries/#{key_of(:retries, "a" * 24)}").body)
  end
end
