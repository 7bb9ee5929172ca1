# frozen_string_literal: true

require "test_helper"
require "deckhand/workflow"
require_relative "../support/cluster_helpers"

# Steps of a chunked class and a step over a limiter's limit in cluster
# mode: the members, in a queue on another primary than {workflows}, each
# end their own step with their own result; the step over the limit goes
# back to its queue's schedule as the same step and releases what waits
# for it once, through the outbox.
class ClusterWorkflowStepKindsTest < Minitest::Test
  include Deckhand::ClusterHelpers

  RAN = Thread::Queue.new
  LIMIT = Deckhand::Limiter.window("cluster-workflow-kinds", 1, 1, backoff: ->(_overrated, _job) { 0.3 })

  # Its members' results: their number squared.
  class Squares
    include Deckhand::Job

    deckhand_options queue: "mail", chunk: {size: 10, wait: 0.5}

    def perform_chunk(chunk)
      RAN << ["chunk", chunk.args.flatten]
      chunk.each { |(i), job| chunk.result(job, i * i) }
    end
  end

  # One a second passes; over it, rescheduled.
  class Limited
    include Deckhand::Job

    def perform(label)
      RAN << ["try", label]
      LIMIT.within_limit { RAN << ["pass", label] }
      label
    end
  end

  # Records what its parents returned.
  class Note
    include Deckhand::Job

    def perform(label) = RAN << [label, Deckhand::Workflow.results_of]
  end

  def setup
    super
    RAN.clear
    @pusher = Deckhand::Client.pusher
    Deckhand::Client.pusher = nil # straight to Redis, whatever an earlier test loaded
    Deckhand.config = new_config(concurrency: 4, queues: %w[default mail], scheduler_interval: 0.02)
    Deckhand::Workflow.install(Deckhand.config)
  end

  def teardown
    Deckhand::Client.pusher = @pusher
    super
  end

  def runs = Array.new(RAN.size) { RAN.pop }

  def test_chunk_members_and_a_step_over_its_limit_each_end_their_own_step_once
    flow = Deckhand::Workflow.new("kinds")
    squares = flow.add_many(Squares, (1..4).zip, name: "squares")
    first = flow.add(Limited, "a", after: squares, name: "a")
    second = flow.add(Limited, "b", after: squares, name: "b")
    flow.add(Note, "last", after: [squares, first, second], name: "last")
    flow.push
    with_server { assert_equal "succeeded", flow.wait(timeout: 20)["state"] }
    ran = runs
    assert_equal [1, 2, 3, 4], ran.select { |entry| entry.first == "chunk" }.flat_map(&:last).sort, "each member ran once"
    assert_equal %w[a b], ran.select { |entry| entry.first == "pass" }.map(&:last).sort, "each limited step passed once"
    assert_operator ran.count { |label, _| label == "try" }, :>, 2, "one was over the limit and rescheduled"
    assert_equal [["last", [1, 4, 9, 16, "a", "b"]]], ran.select { |entry| entry.first == "last" }, "released once, with every result"
    assert_equal %w[7 7 0], Deckhand::Workflow.status(flow.id).values_at("total", "succeeded", "open")
  end
end
