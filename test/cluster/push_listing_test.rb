# frozen_string_literal: true

require "test_helper"
require_relative "../support/cluster_helpers"

# Cluster mode's set of queue names ({deckhand}:queues) of the wrong type: a
# push to a placed queue still returns once its jobs are written (their
# queue's list, or its scheduled set), and the scheduler still moves the due
# jobs of the queues its process works, warning that it could not list them.
# A queue no process placed yet cannot be placed (the placement reads the
# set): its push fails before it writes anything.
class ClusterPushListingTest < Minitest::Test
  include Deckhand::ClusterHelpers

  class ListedJob
    include Deckhand::Job

    def perform = nil
  end

  def setup
    super
    @log = StringIO.new
    Deckhand.config.logger = Logger.new(@log)
    keys.place(["default"])
    cluster.call("SET", keys::QUEUES, "not a set")
  end

  def test_a_push_and_a_bulk_push_return_with_their_jobs_queued
    jid = ListedJob.perform_async(1)
    jids = Deckhand::Client.push_bulk("class" => ListedJob, "args" => [[2], [3]])
    assert_equal [jid, *jids].sort, jobs_in("default").map { |job| job["jid"] }.sort
    assert_match(/a push's jobs were queued, but Redis refused to list their queue .*\{deckhand\}:queues/, @log.string)
  end

  def test_a_scheduled_job_is_moved_by_a_scheduler_of_its_queue
    jid = ListedJob.perform_at(Time.now.to_f + 0.2, 1)
    assert_equal 1, cluster.call("ZCARD", keys.scheduled_set("default"))
    wait_for(message: "the job due") { cluster.call("ZRANGE", keys.scheduled_set("default"), "-inf", Time.now.to_f, "BYSCORE").any? }
    scheduler = Deckhand::Server::Chores::Scheduler.new(config: Deckhand.config, store: Deckhand.config.store, process_count: -> { 1 })
    moved, _, _, unlisted = scheduler.enqueue_due
    assert_equal [1, true], [moved, unlisted]
    assert_equal [jid], jobs_in("default").map { |job| job["jid"] }
    assert_equal "string", cluster.call("TYPE", keys::QUEUES)
  end

  def test_a_push_to_a_queue_not_placed_yet_raises_having_written_nothing
    error = assert_raises(Deckhand::CommandError) { ListedJob.set(queue: "fresh").perform_async(1) }
    assert_equal "WRONGTYPE", error.code
    assert_nil cluster.call("HGET", "{deckhand}:placement", "fresh")
    cluster.call("DEL", keys::QUEUES)
    ListedJob.set(queue: "fresh").perform_async(2)
    assert_equal [[2]], jobs_in("fresh").map { |job| job["args"] }
  end
end
