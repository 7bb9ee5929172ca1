# frozen_string_literal: true

require "test_helper"
require_relative "../../support/web/web_helpers"

# Context where the on-call reader is: a queue no process works and a paused
# queue say so on the Queues list, the queue's page and the jid search's
# "not here" page; retrying into a paused queue warns with the count; the
# servers' throttles show with their slots and where they come from.
class WebQueueContextTest < Minitest::Test
  include Deckhand::WebHelpers

  def work(identity, queues, throttles: {})
    redis.call("SADD", "processes", identity)
    redis.call("HSET", identity, "info", JSON.generate("queues" => queues, "throttles" => throttles), "busy", "0", "beat", Time.now.to_f.to_s)
  end

  def push(queue) = Deckhand::Client.push("class" => "RecordJob", "args" => [1], "queue" => queue)

  def test_the_queues_list_and_a_queues_page_say_paused_and_unworked
    work("h:1:a", %w[default mail])
    push("default")
    push("mail")
    push("<b>orphan</b>")
    api.queue("mail").pause
    list = get("/queues").body
    rows = list.scan(%r{<tr>.*?</tr>}m)
    assert_includes rows.grep(/mail</).first, ">paused</span>"
    refute_includes rows.grep(/mail</).first, "no process works it"
    assert_includes rows.grep(/orphan/).first, "no process works it"
    assert_includes rows.grep(/orphan/).first, "deckhand -q \\&lt;b\\&gt;orphan\\&lt;/b\\&gt;", "quoted for a shell"
    refute_match(/paused|no process/, rows.grep(/default</).first)
    assert_includes get("/queues/mail").body, "Paused: its job waits here until the queue is resumed"
    orphan = get("/queues/%3Cb%3Eorphan%3C%2Fb%3E").body
    assert_includes orphan, "No live process works this queue"
    refute_includes orphan, "<b>orphan</b>"
    refute_includes get("/queues/default").body, %(class="queue-state)
  end

  def test_not_here_names_the_queues_where_jobs_wait_without_running
    work("h:1:a", %w[default mail])
    push("default")
    push("mail")
    push("orphan")
    api.queue("mail").pause
    response = get("/find?jid=0123456789abcdef01234567")
    assert_equal 404, response.status
    stuck = response.body[%r{<div class="queue-state warn" id="stuck-queues">.*?</div>}m]
    assert_includes stuck, %(<a href="/queues/mail">mail</a> (1 job))
    assert_includes stuck, %(<a href="/queues/orphan">orphan</a> (1 job))
    refute_includes stuck, "/queues/default"
  end

  def test_retrying_into_a_paused_queue_warns_with_the_count
    work("h:1:a", %w[default mail])
    api.queue("mail").pause
    add_to("retry", retry_job("a" * 24, "queue" => "mail"))
    add_to("retry", retry_job("b" * 24, "queue" => "mail"))
    add_to("retry", retry_job("c" * 24))
    confirm = get("/retries?q=boom&confirm=retry").body
    assert_includes confirm, "Warning: 2 jobs of these would go to a paused queue and wait there until it is resumed: mail (2)."
    response = post("/retries", "action" => "retry", "all" => "1", "q" => "boom", "count" => "3")
    assert_redirect response, "/retries?q=boom#entries", notice: "retried.3.2"
    assert_includes follow(response).body, "3 jobs sent to their queues. Warning: 2 of them went to a paused queue and wait there until it is resumed."
    assert_equal 2, api.queue("mail").size
  end

  def test_the_warning_follows_combined_filters
    api.queue("mail").pause
    add_to("retry", retry_job("a" * 24, "queue" => "mail"))
    add_to("retry", retry_job("b" * 24, "queue" => "mail", "class" => "OtherJob"))
    confirm = get("/retries?class=RecordJob&error=RuntimeError&confirm=retry").body
    assert_includes confirm, "Warning: 1 job of these would go to a paused queue and wait there until it is resumed: mail (1)."
  end

  def test_no_warning_when_no_queue_is_paused
    add_to("retry", retry_job("a" * 24))
    refute_includes get("/retries?q=boom&confirm=retry").body, "paused-warning"
    response = post("/retries", "action" => "retry", "all" => "1")
    assert_redirect response, "/retries#entries", notice: "retried.1"
    refute_includes follow(response).body, "Warning"
  end

  def test_limits_and_the_queues_page_show_the_servers_throttle_and_where_it_comes_from
    work("h:1:a", %w[exports], throttles: {"exports" => {"concurrency" => 2}})
    push("exports")
    redis.call("HSET", "deckhand:throttle:exports", "~held", 2, "h:1:a", 2)
    limits = get("/limits").body
    refute_includes limits, "No queue is throttled"
    row = limits[%r{<tr>\s*<td><a href="/queues/exports">.*?</tr>}m]
    assert_match(%r{<td class="num">2</td>\s*<td class="num">2</td>\s*<td>configuration of 1 server process</td>}, row)
    page = get("/queues/exports").body
    assert_includes page, "throttled · 2/2 running"
    assert_includes page, "Throttle: configuration of 1 server process; 2 of 2 slots held across the fleet."
  end

  def test_busy_shows_each_process_capsules_as_published
    capsules = {"default" => {"concurrency" => 10, "mode" => "weighted", "queues" => %w[critical default], "weights" => {"critical" => 3, "default" => 1}},
                "<i>cpu</i>" => {"concurrency" => 1, "mode" => "strict", "queues" => ["reports"], "weights" => {"reports" => 0}}}
    redis.call("SADD", "processes", "h:1:a")
    redis.call("HSET", "h:1:a", "info", JSON.generate("hostname" => "h", "queues" => %w[critical default reports], "capsules" => capsules),
      "busy", "0", "beat", Time.now.to_f.to_s)
    body = get("/busy").body
    assert_includes body, "capsules: default 10 threads, weighted: critical 3, default 1 · &lt;i&gt;cpu&lt;/i&gt; 1 thread, strict: reports"
  end

  def test_a_partitioned_queue_worked_by_a_process_is_not_flagged
    Deckhand.config.partitions = {"default" => 3}
    work("h:1:a", %w[default])
    6.times { push("default") }
    list = get("/queues").body
    refute_includes list, "no process works it"
    assert_equal 1, list.scan(%r{<a href="/queues/default">}).size, "one row for the partitioned queue"
    refute_includes get("/queues/default").body, %(class="queue-state)
    refute_includes get("/find?jid=0123456789abcdef01234567").body, "stuck-queues"
  end
end
