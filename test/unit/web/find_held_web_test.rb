# frozen_string_literal: true

require "test_helper"
require_relative "../../support/web/web_helpers"

# The header's Find reaches the jobs of a paused class held aside: by jid
# (a page that says it is held, linked to its queue) and by argument (a row
# among the other places' hits), the class's name escaped.
class WebFindHeldTest < Minitest::Test
  include Deckhand::WebHelpers

  def hold(jid, args, name: "ReportJob")
    redis.call("SADD", "queues", "default")
    redis.call("SADD", "deckhand:paused:classes", name)
    redis.call("ZADD", "deckhand:held:default:#{name}", 1, JSON.generate("class" => name, "args" => args, "jid" => jid, "queue" => "default"))
  end

  def held_row(jid, name: "ReportJob")
    %r{<tr class="held">\s*<td>Queue default <span class="meta">held \(class paused\)</span></td>\s*<td class="job"><a href="/queues/default#held">#{Regexp.escape(name)}</a><div class="meta id">#{jid}</div>}
  end

  def test_a_held_job_is_found_by_its_jid
    jid = "a" * 24
    hold(jid, [1])
    response = get("/find?jid=#{jid}")
    assert_equal 200, response.status
    assert_includes response.body, "<title>Job #{jid}"
    assert_match held_row(jid), response.body
    refute_includes response.body, %(id="find-reach"), "no search by argument was made"
  end

  def test_a_held_job_is_found_by_its_argument_beside_the_queued_ones
    queued = Deckhand::Client.push("class" => "RecordJob", "args" => [98431])
    hold("b" * 24, [98431])
    page = get("/find?jid=98431").body
    assert_match held_row("b" * 24), page
    assert_includes page, %(<div class="meta id">#{queued}</div>)
  end

  def test_a_held_class_s_name_is_escaped
    hold("c" * 24, [7], name: "<b>X</b>")
    page = get("/find?jid=#{"c" * 24}").body
    assert_includes page, "&lt;b&gt;X&lt;/b&gt;"
    refute_includes page, "<b>X</b>"
  end
end
