# frozen_string_literal: true

require "test_helper"
require "deckhand/api"
require_relative "../support/cluster_helpers"

# The data API's queues over cluster mode.
class ClusterAPIQueuesTest < Minitest::Test
  include Deckhand::ClusterHelpers

  def api = Deckhand::API.new(Deckhand.config)

  def enqueue(queue, jids, enqueued_at: Time.now.to_f)
    cluster.call("SADD", keys::QUEUES, queue)
    jids.each do |jid|
      cluster.call("LPUSH", keys.queue(queue), JSON.generate("class" => "RecordJob", "args" => [jid], "jid" => jid, "queue" => queue, "enqueued_at" => enqueued_at))
    end
  end

  def test_queues_list_their_sizes_latency_and_jobs
    enqueue("mail", %w[m1 m2 m3], enqueued_at: Time.now.to_f - 60)
    enqueue("billing", %w[b1])
    queues = api.queues
    assert_equal %w[billing mail], queues.map(&:name)
    assert_equal [1, 3], queues.map(&:size)
    assert_in_delta 60, queues.last.latency, 5
    assert_equal %w[m1 m2], api.queue("mail").jobs(page: 1, per_page: 2).map(&:jid)
    assert_equal %w[m3], api.queue("mail").jobs(page: 2, per_page: 2).map(&:jid)
  end

  def test_the_classes_holding_queues_in_other_slots_are_read_in_one_go
    enqueue("mail", %w[m1 m2 m3])
    enqueue("billing", %w[b1])
    all = api.queue_holders(api.queues, running: [])
    assert_equal({"billing" => [["RecordJob", 1]], "mail" => [["RecordJob", 3]]}, all.transform_values { |h| h.waiting.map { |w| [w.name, w.waiting] } })
    assert_equal [["RecordJob", 2, 1.0]], api.queue("mail").holders(sample: 2, running: []).waiting.map { |w| [w.name, w.waiting, w.waiting_share] }
  end

  def test_a_queued_job_is_deleted_and_a_queue_paused_and_resumed
    enqueue("mail", %w[m1 m2 m3])
    job = api.queue("mail").jobs.find { |j| j.jid == "m2" }
    assert api.queue("mail").delete_job("m2", position: job.position)
    assert_equal %w[m1 m3], jobs_in("mail").map { |j| j["jid"] }.reverse
    api.queue("mail").pause
    assert_predicate api.queue("mail"), :paused?
    api.queue("mail").resume
    refute_predicate api.queue("mail"), :paused?
  end

  def test_clearing_a_queue_keeps_its_name_while_its_sets_hold_entries
    enqueue("mail", %w[m1])
    enqueue("billing", %w[b1])
    cluster.call("ZADD", keys.dead_set("mail"), 1, JSON.generate("class" => "X", "jid" => "d1", "queue" => "mail"))
    api.queue("mail").clear
    api.queue("billing").clear
    assert_equal 0, api.queue("mail").size
    assert_equal ["mail"], cluster.call("SMEMBERS", keys::QUEUES), "billing is forgotten, mail still has a dead job"
    assert_equal ["d1"], api.dead.page(1, 5).map(&:jid), "still found through mail's name"
  end
end
