# frozen_string_literal: true

require "test_helper"
require_relative "../support/cluster_helpers"

# Cluster mode: the scheduler runs client middleware on the due jobs of
# every queue's own sets, writes what the chain gives in the queue's slot,
# hands a job the chain sent to another queue over as a claimed entry, and
# removes the entries of the jobs the chain stopped.
class ClusterScheduledMiddlewareTest < Minitest::Test
  include Deckhand::ClusterHelpers

  class Mark
    def call(_klass, job, *)
      job["marked"] = "due"
      yield
    end
  end

  class OddStopper
    def call(_klass, job, *) = job["args"].first.odd? ? false : yield
  end

  # Sends the jobs of "mail" to "low".
  class Reroute
    def call(_klass, job, *)
      job["queue"] = "low" if job["queue"] == "mail"
      yield
    end
  end

  def setup
    super
    @log = StringIO.new
    Deckhand.config.logger = Logger.new(@log)
  end

  def store = Deckhand.config.store

  def scheduler(config = Deckhand.config) = Deckhand::Server::Chores::Scheduler.new(config: config, store: config.store, process_count: -> { 1 })

  def due(queue, args, set: :scheduled_set)
    raw = JSON.generate("class" => "RecordJob", "queue" => queue, "jid" => SecureRandom.hex(12), "args" => args)
    cluster.call("ZADD", keys.public_send(set, queue), "1", raw)
    cluster.call("SADD", keys::QUEUES, queue)
    raw
  end

  def test_a_middleware_that_changes_due_jobs_changes_what_each_queue_gets
    Deckhand.config.client_middleware.add(Mark)
    due("mail", [1])
    due("low", [2], set: :retry_set)
    assert_equal [2, 0], scheduler.enqueue_due(stamp: 9).first(2)
    assert_equal [[[1], "due", 9]], jobs_in("mail").map { |j| j.values_at("args", "marked", "enqueued_at") }
    assert_equal [[[2], "due", 9]], jobs_in("low").map { |j| j.values_at("args", "marked", "enqueued_at") }
    assert_equal 0, cluster.call("ZCARD", keys.scheduled_set("mail")) + cluster.call("ZCARD", keys.retry_set("low"))
  end

  def test_a_middleware_that_stops_due_jobs_removes_them
    Deckhand.config.client_middleware.add(OddStopper)
    stopped = JSON.parse(due("mail", [1]))["jid"]
    due("low", [2])
    assert_equal 1, scheduler.enqueue_due.first
    assert_empty jobs_in("mail")
    assert_equal [[2]], jobs_in("low").map { |j| j["args"] }
    assert_equal 0, cluster.call("ZCARD", keys.scheduled_set("mail"))
    assert_match(/INFO -- : client middleware stopped the due RecordJob #{stopped}/, @log.string)
  end

  # The changed queue lives in another slot: the entry is claimed, the
  # changed job pushed there, then the entry removed.
  def test_a_job_the_chain_sends_to_another_queue_is_handed_over_once
    Deckhand.config.client_middleware.add(Reroute).add(Mark)
    due("mail", [3])
    assert_equal 1, scheduler.enqueue_due.first
    assert_empty jobs_in("mail")
    assert_equal [["low", "due"]], jobs_in("low").map { |j| j.values_at("queue", "marked") }
    assert_equal 0, cluster.call("ZCARD", keys.scheduled_set("mail"))
    assert_includes cluster.call("SMEMBERS", keys::QUEUES), "low"
  end

  def test_a_job_another_scheduler_moved_meanwhile_is_skipped
    other = new_config
    other.client_middleware.add(Mark)
    other_scheduler = scheduler(other)
    client = cluster
    set = keys.scheduled_set("mail")
    interloper = Class.new do
      define_method(:call) do |*, &block|
        other_scheduler.enqueue_due if client.call("ZCARD", set).positive?
        block.call
      end
    end
    Deckhand.config.client_middleware.add(interloper)
    jids = Array.new(3) { |i| JSON.parse(due("mail", [i]))["jid"] }
    assert_equal [0, 0], scheduler.enqueue_due.first(2)
    assert_equal jids.sort, jobs_in("mail").map { |j| j["jid"] }.sort
  end
end
