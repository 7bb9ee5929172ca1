# frozen_string_literal: true

require "test_helper"
require_relative "../../support/web/web_helpers"

# The dashboard warns of queues that hold jobs no live process works, on the
# front page and in the JSON it polls.
class WebUnworkedQueuesTest < Minitest::Test
  include Deckhand::WebHelpers

  def test_the_front_page_warns_of_a_queue_no_process_works
    Deckhand::Client.push("class" => "RecordJob", "args" => [1], "queue" => "<b>mailers</b>")
    body = get("/").body
    assert_includes body, %(class="unworked")
    assert_includes body, "&lt;b&gt;mailers&lt;/b&gt;</a> holds 1 job that no running process works"
    refute_includes body, "<b>mailers</b>"
  end

  def test_no_warning_when_every_queue_with_jobs_is_worked
    Deckhand::Client.push("class" => "RecordJob", "args" => [1], "queue" => "default")
    redis.call("SADD", "processes", "h:1:a")
    redis.call("HSET", "h:1:a", "info", JSON.generate("queues" => ["default"]), "busy", "0", "beat", Time.now.to_f.to_s)
    refute_includes get("/").body, %(class="unworked")
    assert_equal [], JSON.parse(get("/stats.json").body)["unworked_queues"]
  end

  def test_stats_json_lists_them
    2.times { Deckhand::Client.push("class" => "RecordJob", "args" => [1], "queue" => "mailers") }
    assert_equal [{"name" => "mailers", "size" => 2}], JSON.parse(get("/stats.json").body)["unworked_queues"]
  end

  def test_the_suggested_command_is_quoted_for_a_shell
    Deckhand::Client.push("class" => "RecordJob", "args" => [1], "queue" => "my queue")
    assert_includes get("/").body, %{(<code>deckhand -q my\\ queue</code>)}
    assert_includes get("/queues/my%20queue").body, %(<code>deckhand -q my\\ queue</code>)
    assert_includes get("/queues").body, %{(deckhand -q my\\ queue)">no process works it}
  end
end
