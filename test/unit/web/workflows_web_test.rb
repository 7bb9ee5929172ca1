# frozen_string_literal: true

require "test_helper"
require "deckhand/workflow"
require_relative "../../support/web/web_helpers"

# The Workflows pages through Rack: hostile text in every field they show
# comes out as text, ids that are no workflow's never reach Redis, and the
# cancel and retry buttons are posts the dashboard's guard checks, hidden
# and refused for read-only users.
class WebWorkflowsTest < Minitest::Test
  include Deckhand::WebHelpers

  HOSTILE = %q{</script><script>alert(1)</script>"'><img src=x onerror=alert(2)>}
  ESCAPED = CGI.escapeHTML(HOSTILE)

  def plant
    flow = Deckhand::Workflow.new(HOSTILE)
    root = flow.add(RecordJob.set(queue: "q#{HOSTILE.delete(" ")}"), HOSTILE, name: "n#{HOSTILE.delete(" ")}")
    flow.add(RecordJob, 1, after: root)
    flow.push
    error = JSON.generate({"error_class" => HOSTILE, "error_message" => HOSTILE})
    ops = Deckhand::Workflow.ops(Deckhand.config)
    ops.step(flow.id, "d", root.jid, error)
    [flow, root]
  end

  def test_hostile_strings_print_as_text_and_odd_ids_are_not_found
    flow, = plant
    ["/workflows", "/workflows/#{flow.id}", "/workflows?page=#{ERB::Util.url_encode(HOSTILE)}"].each do |path|
      response = get(path)
      assert_equal 200, response.status, path
      refute_includes response.body, "<script>alert", path
      refute_includes response.body, "<img", path
      assert_includes response.body, ESCAPED, path
    end
    assert_equal 404, get("/workflows/#{ERB::Util.url_encode(HOSTILE)}").status
    assert_equal 404, get("/workflows/nosuchworkflow").status
    assert_equal 404, post("/workflows/nosuchworkflow", "action" => "cancel").status
  end

  def test_a_sub_workflows_steps_are_labelled_with_it_and_its_box_is_dashed
    part = Deckhand::Workflow.new(HOSTILE)
    part.add(RecordJob, 1, name: "inner")
    flow = Deckhand::Workflow.new("outer")
    sub = flow.add_workflow(part, name: "part-#{HOSTILE.delete(" ")}")
    flow.add(RecordJob, 2, after: sub, name: "merge")
    flow.push
    record = Deckhand::API.new.workflow(flow.id)
    group = record.steps.find(&:sub_workflow?)
    assert_equal [sub.jid, HOSTILE, :sub_workflow], [group.jid, group.description, group.condition]
    assert_equal({group => [record.steps.find { |step| step.name == "inner" }]}, record.sub_workflows)
    page = get("/workflows/#{flow.id}").body
    assert_match(%r{<tr id="step-#{sub.jid}">.*?sub-workflow · #{Regexp.escape(ESCAPED)}}m, page)
    inner = record.steps.find { |step| step.name == "inner" }
    assert_match(%r{<tr id="step-#{inner.jid}">.*?in sub-workflow part-&lt;/script&gt;&lt;script&gt;}m, page)
    assert_includes page, %(class="step waiting sub-workflow")
    refute_includes page, "<script>alert"
  end

  def test_cancel_and_retry_are_guarded_posts_and_read_only_users_neither_see_nor_use_them
    flow, root = plant
    assert_equal 403, post_from("/workflows/#{flow.id}", {"action" => "cancel"}, site: "cross-site").status
    assert_equal "failed", Deckhand::Workflow.status(flow.id)["state"], "the dead root cancelled the rest: it ended"
    redis.call("ZADD", "dead", Time.now.to_f, JSON.generate({"class" => "RecordJob", "args" => [1], "jid" => root.jid, "queue" => "default", "wf" => flow.id}))
    read_only = web_app(authorize: ->(_env) { false })
    page = get("/workflows/#{flow.id}", app: read_only).body
    refute_includes page, %(value="retry")
    assert_equal 403, post_from("/workflows/#{flow.id}", {"action" => "retry", "jid" => root.jid}, app: read_only).status
    assert_includes get("/workflows/#{flow.id}").body, %(value="retry")
    assert_redirect post("/workflows/#{flow.id}", "action" => "retry", "jid" => root.jid), "/workflows/#{flow.id}", notice: "step_retried.0"
    assert_equal 0, redis.call("ZCARD", "dead")
    assert_redirect post("/workflows/#{flow.id}", "action" => "retry", "jid" => root.jid), "/workflows/#{flow.id}", notice: "step_not_retried.0"
    assert_redirect post("/workflows/#{flow.id}", "action" => "cancel"), "/workflows/#{flow.id}", notice: "workflow_ended.0"
  end
end
