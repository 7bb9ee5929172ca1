# frozen_string_literal: true

require "test_helper"
require "cgi"
require "deckhand/server"
require_relative "../support/cluster_helpers"
require_relative "../support/web/web_helpers"

# The charts' history in cluster mode: the throughput and the failures by
# error class read from the metrics hashes (one slot, the layout's
# METRICS), and the queue samples of queues on
# different primaries, written by the real sampler and read on each queue's page.
class ClusterHistoryChartsTest < Minitest::Test
  include Deckhand::WebHelpers
  include Deckhand::ClusterHelpers

  QUEUES = %w[default mail billing].freeze # one on each primary

  def attribute(body, selector, name)
    tag = body[/<[^>]*#{Regexp.escape(selector)}[^>]*>/m] or flunk("no #{selector} in the page")
    CGI.unescapeHTML(tag[/\s#{name}="([^"]*)"/, 1])
  end

  def test_the_dashboard_and_the_queue_pages_read_their_history
    store = Deckhand.config.store
    now = store.clock.now
    tally = Deckhand::Store::Records::ExecutionMetrics::Tally.new
    6.times { |i| tally.record("RecordJob", 2.0, i.zero?) }
    store.pipelined do |pipe|
      Deckhand::Store::Records::ExecutionMetrics.flush(pipe, tally.take, now: Time.at(now - 120), prefix: keys::METRICS)
      Deckhand::Store::Records::ErrorMetrics.flush(pipe, {"KeyError" => 1}, now: Time.at(now - 120), prefix: keys::METRICS)
    end
    QUEUES.each_with_index { |queue, i| Deckhand::Client.push_bulk("class" => "RecordJob", "args" => (1..(i + 1)).to_a.zip, "queue" => queue) }
    sampler = Deckhand::Server::Chores::QueueSampler.new(store: store, identity: "host-a:1", logger: QUIET_LOGGER)
    assert_equal 3, sampler.tick(now - 60)

    body = get("/").body
    points = JSON.parse(attribute(body, "data-live-chart", "data-history"))
    assert_equal [["KeyError", 1]], JSON.parse(attribute(body, %(id="failures-chart"), "data-series")).map { |name, counts| [name, counts.sum] }
    assert_equal [6, 1], [points.sum { |point| point[1] }, points.sum { |point| point[2] }]
    QUEUES.each_with_index do |queue, i|
      series = JSON.parse(attribute(get("/queues/#{queue}").body, %(id="depth-chart"), "data-series"))
      assert_equal [i + 1], series[0][1].compact, "#{queue}'s depth, sampled on its own primary"
    end
  end

  # Drop-in mode's tracker writes in a round trip of its own
  # (ExecutionMetrics.write), under the same one-slot prefix the heartbeat uses.
  def test_metrics_written_outside_a_heartbeat_read_on_the_dashboard
    now = Deckhand.config.store.clock.now
    tally = Deckhand::Store::Records::ExecutionMetrics::Tally.new
    4.times { |i| tally.record("TrackedJob", 3.0, i.zero?) }
    Deckhand::Store::Records::ExecutionMetrics.write(Deckhand.config.store, tally.take, now: Time.at(now - 120), errors: {"IOError" => 1})
    body = get("/").body
    points = JSON.parse(attribute(body, "data-live-chart", "data-history"))
    assert_equal [4, 1], [points.sum { |point| point[1] }, points.sum { |point| point[2] }]
    assert_equal [["IOError", 1]], JSON.parse(attribute(body, %(id="failures-chart"), "data-series")).map { |name, counts| [name, counts.sum] }
  end
end
