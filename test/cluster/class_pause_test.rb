# frozen_string_literal: true

require "test_helper"
require "deckhand/server"
require "deckhand/api"
require_relative "../support/cluster_helpers"

# Pause by job class in cluster mode: a held job waits in its queue's slot
# (settle.lua writes it there as it leaves the in-flight hash), and the
# resume moves it back to that queue.
class ClusterClassPauseTest < Minitest::Test
  include Deckhand::ClusterHelpers

  class ReportJob
    include Deckhand::Job

    def perform(*args) = Deckhand::TestJobs.record([:report, args])
  end

  QUEUES = %w[default mail reports].freeze

  def slot(key) = cluster.call("CLUSTER", "KEYSLOT", key)

  def held(queue) = cluster.call("ZRANGE", keys.held(queue, ReportJob.name), 0, -1)

  def test_held_jobs_wait_in_their_queues_slot_and_go_back_on_resume
    Deckhand.config = new_config(queues: QUEUES, concurrency: 2, scheduler_interval: 0.05, heartbeat_interval: 0.1, timeout: 2)
    pauses = Deckhand::API.new.class_pauses
    pauses.pause(ReportJob)
    with_server do
      QUEUES.each { |queue| ReportJob.set(queue: queue).perform_async(queue) }
      QUEUES.each { |queue| RecordJob.set(queue: queue).perform_async(queue) }
      wait_for(message: "the other jobs") { Deckhand::TestJobs.runs.size == 3 }
      wait_for(message: "held") { QUEUES.all? { |queue| held(queue).size == 1 } }
      QUEUES.each { |queue| assert_equal slot(keys.queue(queue)), slot(keys.held(queue, ReportJob.name)) }
      assert_equal({ReportJob.name => 3}, pauses.held)
      # A server seeing the resume at its next beat may move some back before
      # the resume's own move does: each is moved once, by one of them.
      assert_includes 0..3, pauses.resume(ReportJob)
      wait_for(message: "the held jobs' runs") { Deckhand::TestJobs.runs.size == 6 }
      sleep 0.3
      reports = Deckhand::TestJobs.runs.filter_map { |kind, (queue)| queue if kind == :report }
      assert_equal QUEUES.sort, reports.sort, "each held job ran once"
      QUEUES.each { |queue| assert_empty held(queue) }
    end
  end

  # A queue move copies the held sets of the classes paused when it runs;
  # jobs left held under a retired tag (their class paused again since) are
  # gathered by the resume first.
  def test_jobs_held_under_a_tag_a_queue_move_retired_go_back_on_resume
    pauses = Deckhand::API.new.class_pauses
    pauses.pause(ReportJob)
    RecordJob.set(queue: "mail").perform_async(0) # places and registers the queue
    old = Deckhand::Store::Layout::Cluster.candidate("mail", 9)
    refute_equal keys.tag("mail"), old
    job = JSON.generate("class" => ReportJob.name, "args" => ["mail"], "jid" => "m" * 24, "queue" => "mail")
    cluster.call("HSET", keys::PLACEMENT_RETIRED, old, "mail")
    cluster.call("ZADD", Deckhand::Store::Layout::TagNames.held(old, ReportJob.name), 1, job)
    assert_equal 1, pauses.resume(ReportJob)
    assert_includes cluster.call("LRANGE", keys.queue("mail"), 0, -1), job, "back in the queue under its current tag, as it was"
    assert_equal 0, cluster.call("ZCARD", Deckhand::Store::Layout::TagNames.held(old, ReportJob.name))
    assert_empty held("mail")
  end
end
