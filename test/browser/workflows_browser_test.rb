# frozen_string_literal: true

require "test_helper"
require "deckhand/api"
require "deckhand/workflow"
require_relative "browser_harness"

# The Workflows pages in headless Chromium, served by `deckhand web` (which
# never loads deckhand/workflow): the list, a workflow's steps drawn by
# level in their states, retrying its dead step and cancelling it by
# clicking, at desktop width and on a phone.
class WorkflowsBrowserTest < Minitest::Test
  include Deckhand::BrowserHarness

  def teardown
    close_page
    super
  end

  def api = Deckhand::API.new(Deckhand.config)

  # A workflow whose fetch succeeded and whose parts ran: one died (its job
  # in the dead set), one runs, the rest succeeded; the merge after them is
  # cancelled, the cleanup released. The steps' news is told as a server
  # tells it (Workflow.ops).
  def seed
    older = Deckhand::Workflow.new("older import")
    older.add(RecordJob, 0)
    older.push
    flow = Deckhand::Workflow.new(%(import "7" <b>not bold</b>))
    fetch = flow.add(RecordJob, 7)
    parts = flow.add_many(RecordJob, (0...12).map { |i| [7, i] }, after: fetch, name: "parts")
    merge = flow.add(RecordJob, 7, after: parts, name: "merge")
    flow.add(RecordJob, 7, after: merge, name: "notify")
    flow.add(RecordJob, 7, after: merge, on: :complete, name: "cleanup")
    flow.push
    ops = Deckhand::Workflow.ops(Deckhand.config)
    ops.step(flow.id, "r", fetch.jid)
    ops.step(flow.id, "s", fetch.jid, "1")
    dead, running, *done = parts.jids
    done.each { |jid| ops.step(flow.id, "s", jid, "1") }
    ops.step(flow.id, "r", running)
    raw = redis.call("LRANGE", "queue:default", 0, -1).find { |job| JSON.parse(job)["jid"] == dead }
    redis.call("LREM", "queue:default", 1, raw)
    entry = JSON.parse(raw).merge("error_class" => "IOError", "error_message" => "part <i>7</i> gave up", "failed_at" => Deckhand::Payload.now, "retry_count" => 3)
    redis.call("ZADD", "dead", Time.now.to_f, JSON.generate(entry))
    ops.step(flow.id, "d", dead, JSON.generate({"error_class" => "IOError", "error_message" => "part <i>7</i> gave up"}))
    [flow, dead]
  end

  def step_states = page.css("svg.step-graph a.step").map { |box| box.attribute("class").split.last }

  def test_the_list_and_a_workflows_graph_then_retry_its_dead_step_and_cancel_it_by_clicking
    visit("/workflows")
    assert_includes page.body, "No workflows in Redis"
    assert_no_browser_problems

    flow, dead = seed
    visit("/workflows")
    assert_equal [%(import "7" <b>not bold</b>), "older import"], page.css("table.workflows tbody tr td:first-child a").map(&:text)
    screenshot("workflows")
    assert_no_browser_problems

    page.at_xpath(%(//a[text()='import "7" <b>not bold</b>'])).click
    wait_for(message: "the workflow page") { page.current_url.end_with?("/workflows/#{flow.id}") }
    assert_equal 4, page.css("svg.step-graph").first.css("a.step").map { |box| box.at_css("rect").attribute("y") }.uniq.size, "four levels drawn"
    assert_equal 1 + 6 + 1 + 2, step_states.size, "a level shows 6 steps and counts the rest"
    assert_includes page.at_css("svg.step-graph .more").text, "+6 more"
    assert_equal %w[dead running succeeded], step_states[1, 3], "those that need a look first"
    assert_equal({"succeeded" => 11, "dead" => 1, "running" => 1, "cancelled" => 2, "queued" => 1}, page.css("table.steps .badge").map(&:text).tally)
    assert_equal 6 + 6 + 2, page.css("svg.step-graph line.edge").size, "a line from each shown parent"
    assert_equal true, page.evaluate("document.querySelector('svg.step-graph').getBoundingClientRect().right <= window.innerWidth"), "the graph fits at 1280 px"
    assert_includes page.at_css("tr#step-#{dead}").text, "IOError: part <i>7</i> gave up", "the error shown as text"
    screenshot("workflow")
    assert_no_browser_problems

    page.at_css(%(tr#step-#{dead} button[value="retry"])).scroll_into_view.click # below the fold
    wait_for(message: "the retry's notice") { page.at_css(".notice")&.text&.include?("Step sent back to its queue") }
    assert_equal 0, api.dead.size
    assert_includes redis.call("LRANGE", "queue:default", 0, -1).join, dead
    assert_no_browser_problems

    page.at_css(%(button[value="cancel"])).scroll_into_view.click # asks first; the harness says OK
    wait_for(message: "the cancel's notice") { page.at_css(".notice")&.text&.include?("Workflow cancelled") }
    assert_equal 3, page.css("table.steps .badge").map(&:text).tally["cancelled"], "the cleanup released before the cancel"
    assert_equal "running", api.workflow(flow.id).state, "its running part runs on"
    assert_nil page.at_css(%(button[value="retry"])), "nothing to retry: the dead step's workflow was cancelled"
    assert_no_browser_problems
  end

  def test_a_workflow_on_a_phone_in_dark_mode
    flow, = seed
    visit("/workflows")
    page.set_viewport(width: 390, height: 844, scale_factor: 2, mobile: true)
    page.command("Emulation.setEmulatedMedia", features: [{name: "prefers-color-scheme", value: "dark"}])
    ["/workflows", "/workflows/#{flow.id}"].each do |path|
      page.go_to("#{Deckhand::BrowserHarness.url}#{path}")
      overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
      assert_operator overflow, :<=, 0, "#{path} scrolls sideways on a phone"
      assert_equal "rgb(23, 28, 35)", page.evaluate("getComputedStyle(document.querySelector('.panel')).backgroundColor"), "dark panels"
    end
    assert_equal true, in_view?(".graph"), "the graph's frame fits; the graph scrolls inside it"
    screenshot("workflow-phone-dark")
    page.go_to("#{Deckhand::BrowserHarness.url}/workflows")
    screenshot("workflows-phone-dark")
    assert_no_browser_problems
  end
end
