# frozen_string_literal: true

require "test_helper"
require_relative "../../support/web/web_helpers"

# Queue actions keep the user's place: pausing from the list stays on the
# list, deleting on page 3 returns to page 3; an entry that is not a job can be
# deleted alone; long arguments can be read whole.
class WebQueueActionsTest < Minitest::Test
  include Deckhand::WebHelpers

  def test_pausing_from_the_list_stays_on_the_list
    Deckhand::Client.push("class" => "RecordJob", "args" => [1], "queue" => "mail")
    assert_includes get("/queues").body, %(<input type="hidden" name="from" value="list">)
    assert_redirect post("/queues/mail", "action" => "pause", "from" => "list"), "/queues", notice: "paused.0"
    assert_redirect post("/queues/mail", "action" => "resume"), "/queues/mail", notice: "resumed.0"
  end

  def test_deleting_on_page_3_returns_to_page_3
    jids = Deckhand::Client.push_bulk("class" => "RecordJob", "args" => (1..40).to_a.zip)
    body = get("/queues/default?page=3&per_page=10").body
    assert_includes body, %(<input type="hidden" name="page" value="3">)
    assert_includes body, %(data-confirm="Delete RecordJob #{jids[20]} from default?")
    response = post("/queues/default", "action" => "delete", "jid" => jids[20], "position" => "20", "page" => "3", "per_page" => "10")
    assert_redirect response, "/queues/default?page=3&per_page=10#jobs", notice: "deleted.1"
    assert_includes follow(response).body, %(<span class="here" aria-current="page">3</span>)
    assert_equal 39, redis.call("LLEN", "queue:default")
  end

  def test_an_entry_that_is_not_a_job_is_deleted_alone
    Deckhand::Client.push("class" => "RecordJob", "args" => [1])
    redis.call("LPUSH", "queue:default", "not json {")
    redis.call("LPUSH", "queue:default", "not json {")
    Deckhand::Client.push("class" => "RecordJob", "args" => [2])
    job = api.queue("default").jobs.find(&:corrupt?)
    assert_includes get("/queues/default").body, %(<input type="hidden" name="digest" value="#{job.digest}">)
    assert_redirect post("/queues/default", "action" => "delete", "digest" => job.digest, "position" => job.position.to_s), "/queues/default", notice: "deleted.1"
    assert_equal ["{", "not json {", "{"], redis.call("LRANGE", "queue:default", 0, -1).map { |raw| raw[0, 10].sub(/\A\{.*/, "{") }
    assert_redirect post("/queues/default", "action" => "delete", "digest" => "0" * 64, "position" => "0"), "/queues/default", notice: "gone.0"
  end

  def test_long_arguments_can_be_read_whole
    Deckhand::Client.push("class" => "RecordJob", "args" => ["x" * 300 + "<tail>"])
    body = get("/queues/default").body
    assert_includes body, "<details><summary>"
    assert_includes body, "&lt;tail&gt;"
  end
end
