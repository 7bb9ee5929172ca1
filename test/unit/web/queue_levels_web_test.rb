# frozen_string_literal: true

require "test_helper"
require_relative "../../support/web/web_helpers"

# A queue's page lists the jobs waiting at its priority levels with its
# own, in the order they will run, each marked with its level and deleted
# from its level's list; the jobs of paused classes held in the queue are
# counted.
class WebQueueLevelsTest < Minitest::Test
  include Deckhand::WebHelpers

  def push(arg, priority: nil) = Deckhand::Client.push("class" => "RecordJob", "args" => [arg], "priority" => priority)

  def test_jobs_at_levels_are_listed_in_run_order_with_their_level
    own = push("own")
    late = push("late", priority: 3)
    urgent = push("urgent", priority: -4)
    page = get("/queues/default").body
    ids = page.scan(%r{<div class="meta id">(\w+)</div>}).flatten
    assert_equal [urgent, own, late], ids
    assert_includes page, %(<div class="meta level">priority -4</div>)
    assert_includes page, %(<div class="meta level">priority 3</div>)
    assert_equal 2, page.scan(%(<div class="meta level">)).size, "the queue's own job has no level"
    assert_includes page, %(<input type="hidden" name="level" value="-4">)
    assert_match(%r{<td class="num">3</td>\s*<td>RecordJob<div class="meta id">#{late}}, page, "numbered in run order")
    assert_equal [late, own, urgent], get("/queues/default?direction=desc").body.scan(%r{<div class="meta id">(\w+)</div>}).flatten, "newest first: the run order reversed"
  end

  def test_a_job_at_a_level_is_deleted_from_the_page
    push("own")
    jid = push("urgent", priority: -4)
    response = post("/queues/default", "action" => "delete", "jid" => jid, "position" => "0", "level" => "-4")
    assert_redirect response, "/queues/default", notice: "deleted.1"
    assert_equal 0, redis.call("LLEN", "queue:default~r-4")
    assert_equal 1, redis.call("LLEN", "queue:default")
  end

  def test_the_held_jobs_of_paused_classes_are_counted_on_the_queue_s_page
    push("own")
    redis.call("SADD", "deckhand:paused:classes", "ReportJob")
    redis.call("ZADD", "deckhand:held:default:ReportJob", 1, JSON.generate("class" => "ReportJob", "args" => [1], "jid" => "r" * 24))
    page = get("/queues/default").body
    assert_match(%r{<p class="meta held" id="held">Held aside while their class is paused: ReportJob \(1\)\. <a href="[^"]*/queues#classes">Paused job classes</a></p>}, page)
    refute_includes get("/queues/mail").body, %(id="held")
  end

  def test_find_lists_a_job_at_a_level_linked_to_its_queue
    jid = Deckhand::Client.push("class" => "RecordJob", "args" => [98431], "priority" => -4)
    page = get("/find?jid=98431").body
    assert_match(%r{<td>Queue default <span class="meta">priority -4 \(#1\)</span></td>\s*<td class="job"><a href="/queues/default">RecordJob</a><div class="meta id">#{jid}</div>}, page)
  end
end
