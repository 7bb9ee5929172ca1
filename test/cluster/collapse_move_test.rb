# frozen_string_literal: true

require "test_helper"
require "deckhand/server"
require_relative "../support/cluster_helpers"

# A queue move (Store::Tags::QueueMove) carries the records of its
# debounced and deduplicated keys to the queue's new tag with their jobs:
# a debounced job waiting its wait through the move runs once, and a push
# of its key after the move still replaces it. A push under either tag
# while the move runs is settled by the move: the job due last stays.
class ClusterCollapseMoveTest < Minitest::Test
  include Deckhand::ClusterHelpers

  class DraftJob
    include Deckhand::Job

    deckhand_options debounce: {key: ->(args) { args.first }, wait: 60}

    def perform(*args) = Deckhand::TestJobs.record(args)
  end

  class SyncJob
    include Deckhand::Job

    def perform(*) = nil
  end

  Names = Deckhand::Store::Layout::TagNames

  def setup
    super
    Deckhand::TestJobs.reset
  end

  def slot(key) = cluster.call("CLUSTER", "KEYSLOT", key)

  def other_tag(queue) = (1..9).map { |n| Deckhand::Store::Layout::Cluster.candidate(queue, n) }.find { |tag| slot(tag) != slot(keys.queue(queue)) }

  def record(queue, key, mode = "debounce") = Deckhand::Collapsing.key({"class" => DraftJob.name, "queue" => queue, mode => {"key" => key}}, mode, keys)

  def scheduled(tag) = cluster.call("ZRANGE", Names.set(tag, "schedule"), 0, -1, "WITHSCORES").flatten.each_slice(2).map { |raw, score| [JSON.parse(raw), score.to_f] }

  def move(queue, to) = Deckhand::Store::Tags::QueueMove.new(Deckhand.config.store, timeout: 10).call(queue, to: to)

  def test_a_debounced_job_waits_through_a_move_and_the_next_push_of_its_key_replaces_it
    first = DraftJob.set(queue: "mail").perform_async("doc", 1)
    other = DraftJob.set(queue: "mail").perform_async("memo", 1)
    keep = SyncJob.set(queue: "mail", dedupe: {key: "sync", ttl: 600})
    assert keep.perform_async(1)
    from = keys.queue("mail")
    old_record = record("mail", "doc")
    due = scheduled(from).to_h { |job, score| [job["jid"], score] }
    to = other_tag("mail")

    move("mail", to)

    assert_equal to, keys.queue("mail")
    new_record = record("mail", "doc")
    refute_equal slot(old_record), slot(new_record)
    jid, payload = cluster.call("HMGET", new_record, "jid", "payload")
    assert_equal [first, first], [jid, payload && JSON.parse(payload)["jid"]], "the record under the new tag names the waiting job"
    assert_operator cluster.call("PTTL", new_record), :>, 3_600_000, "the record lives on as long as it had left"
    assert_equal 0, cluster.call("EXISTS", old_record, record("mail", "memo").sub(to, from)), "nothing left under the old tag"
    assert_equal due, scheduled(to).to_h { |job, score| [job["jid"], score] }, "each job due when it was"

    last = DraftJob.set(queue: "mail", debounce: {key: "doc", wait: 0.3}).perform_async("doc", 2)
    assert_equal [["doc", 2], ["memo", 1]], scheduled(to).map { |job, _| job["args"] }.sort, "the push after the move replaced the job before it"
    assert_equal last, cluster.call("HGET", new_record, "jid")
    assert other
    assert_nil keep.perform_async(2), "a dedupe window still keeps a push out after the move"

    Deckhand.config = new_config(queues: %w[mail], scheduler_interval: 0.05, heartbeat_interval: 0.1, timeout: 2)
    with_server do
      wait_for(message: "the last push's job to run") { Deckhand::TestJobs.runs.any? }
      sleep 0.5
    end
    assert_equal [["doc", 2]], Deckhand::TestJobs.runs, "once, with the last push's args; the other key still waits"
  end

  # Processes that followed the switch first pushed under the new tag and
  # found no record there, leaving two jobs of a key: the move keeps the
  # one due last, and its record names it.
  def test_a_push_under_the_new_tag_before_the_records_came_is_settled_by_due_time
    early = DraftJob.set(queue: "mail").perform_async("early", 1)
    late = DraftJob.set(queue: "mail").perform_async("late", 1)
    from = keys.queue("mail")
    to = other_tag("mail")
    due = scheduled(from).to_h { |job, score| [job["jid"], score] }
    newer = raw_push(to, "early", due.fetch(early) + 10)
    older = raw_push(to, "late", due.fetch(late) - 10)

    move("mail", to)

    assert_equal [[newer, ["early", 2]], [late, ["late", 1]]].sort, scheduled(to).map { |job, _| [job["jid"], job["args"]] }.sort
    assert_equal [newer, late], [record("mail", "early"), record("mail", "late")].map { |key| cluster.call("HGET", key, "jid") }
    refute_includes scheduled(to).map { |job, _| job["jid"] }, older
  end

  private

  # What a debounced push of `key` under `tag` that found no record writes
  # (called while the queue is placed under its old tag).
  def raw_push(tag, key, score)
    jid = SecureRandom.hex(12)
    raw = JSON.generate("class" => DraftJob.name, "args" => [key, 2], "jid" => jid, "queue" => "mail", "debounce" => {"key" => key, "wait" => 60})
    cluster.call("ZADD", Names.set(tag, "schedule"), score, raw)
    cluster.call("HSET", record("mail", key).sub(keys.queue("mail"), tag), "jid", jid, "payload", raw) # its record under the new tag
    jid
  end
end
