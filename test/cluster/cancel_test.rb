# frozen_string_literal: true

require "test_helper"
require "deckhand/api"
require "support/cluster_helpers"

# Client.cancel in cluster mode: a job is found in its queue's list and its
# queue's scheduled, retry and dead sets, each in the queue's own slot, taken
# out, and recorded in the fleet's slot; a running job hears of its cancel
# through its process's heartbeat, whose MGET of the marks reads one slot.
class ClusterCancelTest < Minitest::Test
  include Deckhand::ClusterHelpers

  class CheckingJob
    include Deckhand::Job

    deckhand_options queue: "mail"

    def perform = (sleep 0.01 until cancelled?)
  end

  # A chunk of 30 that runs until its last member is cancelled.
  class LongChunkJob
    include Deckhand::Job

    deckhand_options queue: "mail", chunk: {size: 30, wait: 2}

    def perform_chunk(chunk) = (sleep 0.01 until chunk.cancelled?(chunk.jobs.last))
  end

  def api = Deckhand::API.new

  def test_a_waiting_job_is_taken_out_of_its_queues_list_and_sets
    queued = RecordJob.set(queue: "mail").perform_async(1)
    kept = RecordJob.set(queue: "mail").perform_async(2)
    scheduled = RecordJob.set(queue: "mail").perform_in(600, 3)
    dead = JSON.generate("class" => "RecordJob", "args" => [4], "jid" => "d" * 24, "queue" => "mail")
    cluster.call("ZADD", keys.dead_set("mail"), Time.now.to_f, dead)

    assert_equal :removed_from_queue, Deckhand::Client.cancel(queued)
    assert_equal :removed_from_schedule, Deckhand::Client.cancel(scheduled)
    assert_equal :removed_from_dead, Deckhand::Client.cancel("d" * 24)
    assert_equal [kept], jobs_in("mail").map { |job| job["jid"] }
    assert_equal [0, 0], [keys.scheduled_set("mail"), keys.dead_set("mail")].map { |set| cluster.call("ZCARD", set) }
    assert_equal %w[queue schedule dead], [queued, scheduled, "d" * 24].map { |jid| api.cancellation(jid).where }
    assert_equal 0, cluster.call("EXISTS", keys.cancel_mark(queued)), "the mark goes with the job"
  end

  def test_a_running_job_sees_its_cancel
    jid = CheckingJob.perform_async
    with_server(new_config(queues: %w[mail], heartbeat_interval: 0.1)) do
      wait_for(message: "the job running") { api.running.any? { |r| r.job.jid == jid } }
      assert_equal :cancelling_running, Deckhand::Client.cancel(jid)
      wait_for(message: "the job cancelled") { api.cancellation(jid) && api.running.empty? }
    end
    assert_equal "running", api.cancellation(jid).where
    assert_equal [0, 0], [cluster.call("LLEN", keys.queue("mail")), cluster.call("ZCARD", keys.retry_set("mail"))]
  end

  # A chunk's member past the 20 its work record lists is found in its
  # process's set of chunk members, in the fleet's slot.
  def test_a_running_chunks_last_member_sees_its_cancel
    jids = LongChunkJob.perform_bulk((1..30).each_slice(1).to_a)
    # One thread: no other thread joins a member to the chunk out of push order.
    with_server(new_config(queues: %w[mail], heartbeat_interval: 0.1, concurrency: 1)) do |launcher|
      wait_for(message: "the chunk running") { api.running.any? { |r| r.chunk_size == 30 } }
      refute_includes api.running.flat_map(&:chunk_jids), jids.last, "past the members the work record lists"
      assert_equal 1, cluster.call("SISMEMBER", keys.chunk_members(launcher.identity), jids.last)
      assert_equal :cancelling_running, Deckhand::Client.cancel(jids.last)
      wait_for(message: "the member cancelled") { api.cancellation(jids.last) && api.running.empty? }
    end
    assert_equal "running", api.cancellation(jids.last).where
    assert_equal [0, 0], [cluster.call("LLEN", keys.queue("mail")), cluster.call("ZCARD", keys.retry_set("mail"))]
  end

  # A job of a paused class held aside, in its held set in the queue's
  # slot: taken out there, recorded in the fleet's slot, and found by the
  # dashboard's search meanwhile.
  def test_a_held_job_is_taken_out_of_its_held_set
    api.class_pauses.pause("HeldReportJob")
    RecordJob.set(queue: "mail").perform_async(0) # places and names the queue
    held = JSON.generate("class" => "HeldReportJob", "args" => [98431], "jid" => "h" * 24, "queue" => "mail")
    cluster.call("ZADD", keys.held("mail", "HeldReportJob"), 1, held)
    assert_equal [[:held, "h" * 24, "mail"]], api.find_by_argument("98431").hits.map { |hit| [hit.place, hit.record.jid, hit.queue] }
    assert_equal "mail", api.class_pauses.find_held("h" * 24).queue
    assert_equal :removed_from_queue, Deckhand::Client.cancel("h" * 24)
    assert_equal 0, cluster.call("ZCARD", keys.held("mail", "HeldReportJob"))
    assert_equal %w[HeldReportJob mail held], api.cancellation("h" * 24).then { |record| [record.job_class, record.queue, record.where] }
    assert_nil cluster.call("GET", keys.cancel_mark("h" * 24))
  end
end
