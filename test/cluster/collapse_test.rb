# frozen_string_literal: true

require "test_helper"
require "deckhand/server"
require_relative "../support/cluster_helpers"

# Debounce and dedupe in cluster mode: a key's record lives in its queue's
# slot, beside the queue and the queue's scheduled set, so one script
# writes the new job, its record, and takes the earlier job out.
class ClusterCollapseTest < Minitest::Test
  include Deckhand::ClusterHelpers

  class TypingJob
    include Deckhand::Job

    deckhand_options debounce: {key: ->(args) { args.first }, wait: 0.3}

    def perform(*args) = Deckhand::TestJobs.record(args)
  end

  QUEUES = %w[default mail reports].freeze

  def slot(key) = cluster.call("CLUSTER", "KEYSLOT", key)

  def scheduled(queue) = cluster.call("ZRANGE", keys.scheduled_set(queue), 0, -1).map { |raw| JSON.parse(raw) }

  def test_a_burst_per_queue_leaves_one_job_in_its_queues_scheduled_set_and_runs_once
    QUEUES.each { |queue| 4.times { |n| TypingJob.set(queue: queue).perform_async("doc", n) } }
    QUEUES.each do |queue|
      assert_equal [["doc", 3]], scheduled(queue).map { |job| job["args"] }, queue
      job = {"class" => TypingJob.name, "queue" => queue, "debounce" => {"key" => "doc"}}
      record = Deckhand::Collapsing.key(job, "debounce", keys)
      assert_equal slot(keys.queue(queue)), slot(record)
      assert_equal scheduled(queue).first["jid"], cluster.call("HGET", record, "jid")
    end
    assert_equal QUEUES.sort, cluster.call("SMEMBERS", keys::QUEUES).sort, "the scheduler finds each shard through the queue's registration"
    Deckhand.config = new_config(queues: QUEUES, concurrency: 2, scheduler_interval: 0.05, heartbeat_interval: 0.1, timeout: 2)
    with_server do
      wait_for(message: "a run per queue") { Deckhand::TestJobs.runs.size >= 3 }
      sleep 0.6
      assert_equal [["doc", 3]] * 3, Deckhand::TestJobs.runs
    end
  end

  def test_dedupe_replace_takes_the_waiting_jobs_place_in_the_queues_slot
    replace = {key: ->(args) { args.first }, ttl: 600, on_conflict: :replace}
    RecordJob.set(queue: "mail", dedupe: replace).perform_async(1, "old")
    newer = RecordJob.set(queue: "mail", dedupe: replace).perform_async(1, "new")
    assert_equal [[newer, [1, "new"]]], jobs_in("mail").map { |job| [job["jid"], job["args"]] }
    RecordJob.set(queue: "reports", dedupe: replace).perform_in(300, 2, "old")
    later = RecordJob.set(queue: "reports", dedupe: replace).perform_in(300, 2, "new")
    assert_equal [later], scheduled("reports").map { |job| job["jid"] }
    keep = RecordJob.set(queue: "mail", dedupe: {key: "k", ttl: 60})
    assert keep.perform_async(3)
    assert_nil keep.perform_async(4), "keep: the waiting job stays"
    assert_equal 2, jobs_in("mail").size
  end
end
