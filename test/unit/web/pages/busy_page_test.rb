# frozen_string_literal: true

require "test_helper"
require_relative "../../../support/web/web_helpers"

# The Busy page: a running job's tags (Sidekiq's "tags" option), escaped,
# each with its jobtag-<tag> class; ?only= shows one of its two sections.
class WebBusyTagsTest < Minitest::Test
  include Deckhand::WebHelpers

  def running(tags)
    redis.call("SADD", "processes", "box:1")
    redis.call("HSET", "box:1", "info", JSON.generate("hostname" => "box", "identity" => "box:1", "started_at" => Time.now.to_f, "concurrency" => 5),
      "at", Time.now.to_f.to_s, "busy", "1")
    work = {"queue" => "critical", "run_at" => Time.now.to_i,
            "payload" => JSON.generate("class" => "TaggedJob", "args" => [1], "jid" => "a" * 24, "tags" => tags)}
    redis.call("HSET", "box:1:work", "t1", JSON.generate(work))
  end

  def test_a_running_jobs_tags_are_shown_escaped
    running(["billing", "<b>vip</b>"])
    body = get("/busy").body
    assert_includes body, %(<span class="badge jobtag jobtag-billing">billing</span>)
    assert_includes body, %(jobtag-&lt;b&gt;vip&lt;/b&gt;">&lt;b&gt;vip&lt;/b&gt;</span>)
    refute_includes body, "<b>vip</b>"
  end

  def test_only_shows_one_section
    running(["billing"])
    jobs = get("/busy?only=jobs")
    assert_equal 200, jobs.status
    assert_includes jobs.body, "TaggedJob"
    refute_includes jobs.body, "Quiet all"
    processes = get("/busy?only=processes")
    assert_includes processes.body, "Quiet all"
    refute_includes processes.body, "TaggedJob"
  end
end
