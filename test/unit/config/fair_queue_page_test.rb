# frozen_string_literal: true

require "test_helper"
require_relative "../../support/web/web_helpers"

# A fair queue seen as one queue by the data API and the dashboard: its size
# counts every tenant's jobs, its page shows the deepest tenants.
class FairQueuePageTest < Minitest::Test
  include Deckhand::WebHelpers

  def setup
    super
    Deckhand.config = new_config(fair_queues: {"reports" => {}})
  end

  def push(tenant, count, queue: "reports")
    Deckhand::Client.push_bulk("class" => "RecordJob", "queue" => queue, "tenant" => tenant, "args" => Array.new(count) { |i| [i] })
  end

  def test_the_queue_counts_every_tenant_and_lists_the_deepest_first
    push("acme", 40)
    push("<globex>", 7)
    queue = api.queue("reports")
    assert_equal 47, queue.size
    assert_equal 47, api.queues.find { |q| q.name == "reports" }.size
    assert_equal 47, api.stats.enqueued
    tenants = queue.tenants(10)
    assert_equal [["acme", 39], ["<globex>", 7]], tenants.map { |t| [t.name, t.size] }, "acme's first job went straight onto the empty queue"
    assert tenants.all? { |t| t.latency.between?(0, 60) }, "each tenant's next job was found at the front"
    body = get("/queues/reports").body
    assert_includes body, "<td>&lt;globex&gt;</td>"
    assert_includes body, %(<td class="num">39</td>)
  end

  def test_a_queue_without_tenants_shows_no_tenants_and_clear_removes_theirs
    Deckhand::Client.push("class" => "RecordJob", "args" => [1])
    refute_includes get("/queues/default").body, %(id="tenants")
    push("acme", 5)
    api.queue("reports").clear
    assert_equal 0, redis.call("EXISTS", "queue:reports", "deckhand:fair:reports", "deckhand:tenants:reports")
  end
end
