# frozen_string_literal: true

require "test_helper"
require "deckhand/testing"
require "deckhand/web"
require "rack/mock"
require "support/prometheus_parser"
require_relative "../support/workflow/workflow_app"
require_relative "../support/workflow/ended"

# Deckhand.config's fake mode, turned on by requiring deckhand/testing, off.
Deckhand::Testing.disable!

# The fleet's workflow counters, as the dashboard's /metrics serves them to
# Prometheus after real workflows ran: each event counted once, by the
# script that made it happen.
class WorkflowMetricsTest < Minitest::Test
  include Deckhand::WorkflowEnded

  App = WorkflowApp

  def setup
    super
    Deckhand::Testing.disable!
    Deckhand.config = new_config(concurrency: 2)
    Deckhand::Workflow.install(Deckhand.config)
  end

  def scrape
    body = Rack::MockRequest.new(Deckhand::Web.new(config: Deckhand.config)).get("/metrics", "HTTP_ACCEPT" => "*/*").body
    families = Deckhand::PrometheusParser.parse(body)
    [families.fetch("deckhand_workflows_pushed_total").value({}),
      %w[succeeded failed cancelled].map { |state| families.fetch("deckhand_workflows_ended_total").value({"state" => state}) },
      families.fetch("deckhand_workflow_steps_released_total").value({}),
      families.fetch("deckhand_workflow_steps_cancelled_total").value({})]
  end

  def test_workflows_pushed_and_ended_and_steps_released_and_cancelled_are_counted_once_each
    assert_equal [0, [0, 0, 0], 0, 0], scrape
    fine = Deckhand::Workflow.new("fine")
    first = fine.add(App::Note, "first", name: "first")
    fine.add_many(App::Note, [["a"], ["b"]], after: first, name: "pair")
    doomed = Deckhand::Workflow.new("doomed")
    fetch = doomed.add(App::Doomed, "fetch")
    parse = doomed.add(App::Note, "parse", after: fetch, name: "parse")
    doomed.add(App::Note, "merge", after: parse, name: "merge")
    doomed.add(App::Note, "alert", after: fetch, on: :failure, name: "alert")
    [fine, doomed].each(&:push)
    with_server { [fine, doomed].each { |flow| ended(flow) } }
    held = Deckhand::Workflow.new("held")
    held.add_many(App::Note, [["x"], ["y"]])
    held.push
    assert_equal 2, Deckhand::Workflow.cancel(held.id)
    # released: first, a, b; fetch, alert; x, y. cancelled: parse, merge; x, y.
    assert_equal [3, [1, 1, 1], 7, 4], scrape
    assert_equal "seen", Deckhand::Workflow.ops(Deckhand.config).step(fine.id, "s", first.jid, "1"), "an end told twice"
    assert_equal :ended, Deckhand::Workflow.cancel(held.id)
    assert_equal [3, [1, 1, 1], 7, 4], scrape, "counted once"
  end
end
