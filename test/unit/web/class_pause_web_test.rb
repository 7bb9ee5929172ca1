# frozen_string_literal: true

require "test_helper"
require_relative "../../support/web/web_helpers"

# Pause by job class on the Queues page: the paused classes with their held
# jobs, a form to pause one, a button to resume one; all escaped, and no
# buttons for a user who may not act.
class ClassPauseWebTest < Minitest::Test
  include Deckhand::WebHelpers

  def held(name) = "deckhand:held:default:#{name}"

  def test_a_class_is_paused_listed_with_its_held_jobs_and_resumed
    response = post("/queues", "action" => "pause", "class" => "ReportJob")
    assert_redirect response, "/queues#classes", notice: "class_paused.0"
    assert_equal ["ReportJob"], redis.call("SMEMBERS", "deckhand:paused:classes")
    job = JSON.generate("class" => "ReportJob", "args" => [1], "jid" => "r" * 24, "queue" => "default")
    redis.call("SADD", "queues", "default")
    redis.call("ZADD", held("ReportJob"), 1, job)
    page = get("/queues").body
    assert_match(%r{Paused job classes <small>1</small>}, page)
    assert_match(%r{<td>ReportJob</td>\s*<td class="num">1</td>}, page)
    assert_includes page, %(value="resume">Resume</button>)
    response = post("/queues", "action" => "resume", "class" => "ReportJob")
    assert_redirect response, "/queues#classes", notice: "class_resumed.1"
    assert_equal [job], redis.call("LRANGE", "queue:default", 0, -1), "back in its queue, as it was"
    assert_equal 0, redis.call("EXISTS", held("ReportJob"))
    assert_empty redis.call("SMEMBERS", "deckhand:paused:classes")
  end

  def test_names_are_escaped_and_a_missing_name_or_action_is_refused
    post("/queues", "action" => "pause", "class" => "<script>x</script>")
    page = get("/queues").body
    assert_includes page, "&lt;script&gt;x&lt;/script&gt;"
    refute_includes page, "<script>x"
    assert_equal 404, post("/queues", "action" => "pause", "class" => " ").status
    assert_equal 404, post("/queues", "action" => "drop", "class" => "ReportJob").status
  end

  def test_a_user_who_may_not_act_sees_the_list_without_its_buttons
    redis.call("SADD", "deckhand:paused:classes", "ReportJob")
    page = get("/queues", app: web_app(authorize: ->(_env) { false })).body
    assert_includes page, "<td>ReportJob</td>"
    refute_includes page, "Pause class"
    refute_includes page, %(value="resume">Resume</button>)
  end
end
