# frozen_string_literal: true

require "test_helper"
require "deckhand/workflow"
require_relative "../support/cluster_helpers"

# Cluster mode: a step released by a process SIGKILLed between writing its
# job to the workflows' outbox and clearing it there is lost by no one and
# run once. A process that dies before pushing leaves the job in the
# outbox, and a server's drain pushes it; one that dies after pushing, before
# clearing, leaves it in both, and the drain only clears it: the queue
# remembers the jid. Drains push each job once however often they run.
class ClusterWorkflowOutboxTest < Minitest::Test
  include Deckhand::ClusterHelpers

  Names = Deckhand::Store::Layout::ClusterWorkflows
  Drain = Deckhand::Server::Chores::WorkflowOutboxDrain
  RAN = Thread::Queue.new
  # Args that JSON escapes, to see them pass the outbox byte for byte.
  SECOND = "second \u2713 </b> \"q\" \\ \u00e9"

  class Step
    include Deckhand::Job

    deckhand_options queue: "mail"

    def perform(label) = RAN << label
  end

  def setup
    super
    RAN.clear
    @pusher = Deckhand::Client.pusher
    Deckhand::Client.pusher = nil
    Deckhand.config = new_config(concurrency: 2, queues: %w[default mail], scheduler_interval: 0.02)
    Deckhand::Workflow.install(Deckhand.config)
  end

  def teardown
    Deckhand::Client.pusher = @pusher
    super
  end

  # A workflow of two steps, the first released (and taken off its queue,
  # as a server would): [flow, first, second].
  def two_steps
    flow = Deckhand::Workflow.new("two")
    first = flow.add(Step, "first")
    second = flow.add(Step, SECOND, after: first)
    flow.push
    assert_equal first.jid, JSON.parse(cluster.call("RPOP", keys.queue("mail")))["jid"]
    [flow, first, second]
  end

  # In a forked process with its own connections: tells the workflow that
  # `first` succeeded, which releases `second`, and dies by SIGKILL as it
  # calls `hooked` (an instance method of `klass`).
  def succeed_and_die_in(flow, first, klass, hooked)
    pid = fork do
      config = new_config
      klass.prepend(Module.new { define_method(hooked) { |*| Process.kill(:KILL, Process.pid) } })
      Deckhand::Workflow.ops(config).step(flow.id, "s", first.jid, "1")
      exit!(0) # not reached
    end
    _, status = Process.wait2(pid)
    assert_equal 9, status.termsig, "the process died by SIGKILL"
  end

  def drain(age_ms: 0) = Drain.new(config: Deckhand.config, store: Deckhand.config.store, age_ms: age_ms).drain

  def queued_jids = cluster.call("LRANGE", keys.queue("mail"), 0, -1).map { |raw| JSON.parse(raw)["jid"] }

  def outboxed = [cluster.call("ZRANGE", Names::OUTBOX, 0, -1), cluster.call("HKEYS", Names::OUTBOX_JOBS)]

  def test_a_process_killed_before_pushing_leaves_the_step_in_the_outbox_and_the_drain_pushes_it_once
    flow, first, second = two_steps
    succeed_and_die_in(flow, first, Deckhand::Store::Scripts::BatchCallbacks, :push)
    assert_equal "s", Deckhand::Workflow.steps(flow.id)[first.jid]["state"], "the end is written"
    assert_equal [], queued_jids
    assert_equal [[second.jid], [second.jid]], outboxed, "the released step waits in the outbox"
    assert_equal 0, drain(age_ms: Deckhand::Store::Features::WorkflowOutbox::AGE_MS), "a fresh entry is left to its caller"
    assert_equal [[second.jid], [second.jid]], outboxed
    assert_equal 1, drain
    assert_equal [second.jid], queued_jids
    assert_equal [[], []], outboxed
    assert_equal 0, drain, "a drain again pushes nothing"
    assert_equal [second.jid], queued_jids
    raw, stored = cluster.call("LINDEX", keys.queue("mail"), 0), cluster.call("HGET", Names.jobs(flow.id), second.jid)
    assert_match(/\A\{"enqueued_at":[0-9.]+,\z/, raw.delete_suffix(stored.delete_prefix("{")), "the job as the workflow holds it, byte for byte")
    assert_equal [Step.name, [SECOND], flow.id], JSON.parse(raw).values_at("class", "args", "wf")
    with_server do
      assert_equal "succeeded", flow.wait(timeout: 20)["state"]
    end
    assert_equal [SECOND], Array.new(RAN.size) { RAN.pop }
  end

  def test_a_process_killed_after_pushing_before_clearing_doubles_nothing
    flow, first, second = two_steps
    succeed_and_die_in(flow, first, Deckhand::Store::Scripts::WorkflowOutboxEntries, :clear)
    assert_equal [second.jid], queued_jids, "the job reached its queue"
    assert_equal [[second.jid], [second.jid]], outboxed, "and is still in the outbox"
    drains = Array.new(2) { Thread.new { drain } }
    assert_equal 0, drains.sum(&:value), "the queue remembers the jid: no drain pushes it again"
    assert_equal [[], []], outboxed, "the drains cleared it"
    assert_equal [second.jid], queued_jids
    with_server { assert_equal "succeeded", flow.wait(timeout: 20)["state"] }
    assert_equal [SECOND], Array.new(RAN.size) { RAN.pop }
    assert_equal 0, cluster.call("LLEN", keys.queue("mail"))
  end

  def test_every_server_runs_the_drain_in_cluster_mode
    with_server do
      assert_includes Thread.list.map(&:name), "deckhand-workflow-outbox"
    end
    assert_nil Drain.build(config: Deckhand.config, store: Deckhand::Store.new({url: "redis://127.0.0.1:1"}, size: 1)), "none in plain mode (no connection made)"
  end
end
