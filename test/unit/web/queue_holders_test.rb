# frozen_string_literal: true

require "test_helper"
require_relative "../../support/web/web_helpers"

# "A queue backed up: why?" answered on the queue screens: the classes whose
# jobs run now (with how long the longest has run) and those waiting at the
# head, each with its share; a sample says it is one; every name escaped.
class WebQueueHoldersTest < Minitest::Test
  include Deckhand::WebHelpers

  def running(identity, count, klass, queue: "reports", ago: 420)
    redis.call("SADD", "processes", identity)
    redis.call("HSET", identity, "info", JSON.generate("queues" => [queue]), "busy", count.to_s, "beat", Time.now.to_f.to_s)
    count.times do |i|
      redis.call("HSET", "#{identity}:work", "t#{i}", JSON.generate("queue" => queue, "payload" => {"class" => klass, "jid" => "j#{i}", "args" => []}, "run_at" => api.now.to_f - ago))
    end
  end

  def push(klass, n, queue: "reports") = Deckhand::Client.push_bulk("class" => klass, "args" => (1..n).to_a.zip, "queue" => queue)

  def test_the_queue_page_names_the_classes_running_and_waiting_with_their_shares
    running("h:1:a", 10, "ReportJob")
    push("ReportJob", 13)
    push("MailJob", 1)
    body = get("/queues/reports").body
    table = body[%r{<table class="holders stack">.*?</table>}m]
    rows = table.scan(%r{<tr>.*?</tr>}m).drop(1).map { |row| row.gsub(/<[^>]+>/, " ").split.join(" ") }
    assert_equal ["ReportJob 10 · 100% 7 min 13 · 93% 0.0 s", "MailJob – 1 · 7% 0.0 s"], rows.map { |r| r.sub(/(\d+\.\d) s\z/, "0.0 s") }
    assert_includes body, "Running now: 10 jobs of this queue, in the processes&#39; records (as on Busy). Waiting: all 14 jobs in the list."
  end

  def test_an_emptied_queue_still_names_what_runs_from_it
    running("h:1:a", 2, "ReportJob")
    redis.call("SADD", "queues", "reports")
    body = get("/queues/reports").body
    assert_includes body, "Running now: 2 jobs of this queue, in the processes&#39; records (as on Busy). Waiting: none."
    assert_includes body, "<strong>ReportJob</strong>"
  end

  def test_a_long_queue_s_waiting_side_says_it_is_a_sample
    redis.call("LPUSH", "queue:huge", *Array.new(1_500) { |i| JSON.generate("class" => "BulkJob", "jid" => "j#{i}", "args" => [i]) })
    redis.call("SADD", "queues", "huge")
    body = get("/queues/huge").body
    assert_includes body, "Waiting: a sample, the next 1,000 jobs to run of 1,500."
    assert_includes body, "Waiting (sample)"
    assert_includes get("/queues").body, "waiting: BulkJob 100% of the next 100"
  end

  def test_the_queues_list_says_the_chief_class_of_each_side_in_a_line
    running("h:1:a", 10, "ReportJob")
    push("ReportJob", 14)
    push("MailJob", 2, queue: "mail")
    rows = get("/queues").body.scan(%r{<tr>.*?</tr>}m)
    assert_includes rows.grep(/reports</).first, %(<div class="meta holders-line">running: ReportJob 10 of 10, for 7 min · waiting: ReportJob 100%</div>)
    assert_includes rows.grep(/mail</).first, %(<div class="meta holders-line">waiting: MailJob 100%</div>)
  end

  def test_class_names_are_escaped
    running("h:1:a", 1, "<script>alert(1)</script>")
    push(%(Evil"><img src=x onerror=alert(2)>), 1)
    [get("/queues/reports").body, get("/queues").body].each do |body|
      refute_includes body, "<script>alert(1)"
      refute_includes body, "<img src=x"
      assert_includes body, "&lt;script&gt;alert(1)&lt;/script&gt;"
    end
  end
end
