# frozen_string_literal: true

require "test_helper"
require "deckhand/server"
require_relative "../support/cluster_helpers"

# A process that does not follow queue moves (an earlier version) keeps
# pushing under a queue's retired tag, writing its debounced and
# deduplicated keys' records there beside the jobs. The sweep of retired
# tags (Store::Tags::RetiredSweep) carries those records with the jobs, as
# a move does: each lives on the time it had left, a record already under
# the current tag is settled with (the debounced job due last stays), and a
# push of the key under the current tag still collapses with the swept job.
class ClusterCollapseSweepTest < Minitest::Test
  include Deckhand::ClusterHelpers

  class DraftJob
    include Deckhand::Job

    deckhand_options debounce: {key: ->(args) { args.first }, wait: 60}

    def perform(*) = nil
  end

  class SyncJob
    include Deckhand::Job

    deckhand_options dedupe: {key: "sync", ttl: 600}

    def perform(*) = nil
  end

  Names = Deckhand::Store::Layout::TagNames

  def slot(key) = cluster.call("CLUSTER", "KEYSLOT", key)

  def other_tag(queue) = (1..9).map { |n| Deckhand::Store::Layout::Cluster.candidate(queue, n) }.find { |tag| slot(tag) != slot(keys.queue(queue)) }

  # A record's key under the queue's current tag.
  def record(klass, key, mode) = Deckhand::Collapsing.key({"class" => klass.name, "queue" => "mail", mode => {"key" => key}}, mode, keys)

  def scheduled(tag) = cluster.call("ZRANGE", Names.set(tag, "schedule"), 0, -1, "WITHSCORES").flatten.each_slice(2).map { |raw, score| [JSON.parse(raw), score.to_f] }

  def test_records_pushed_under_a_retired_tag_are_swept_with_their_jobs
    RecordJob.set(queue: "mail").perform_async(0) # places the queue
    retired = keys.queue("mail")
    current = other_tag("mail")
    Deckhand::Store::Tags::QueueMove.new(Deckhand.config.store, timeout: 10).call("mail", to: current)
    assert_equal current, keys.queue("mail")
    due = Time.now.to_f + 60

    doc = old_push(retired, DraftJob, "debounce", "doc", ["doc", 1], score: due, life: 3_000_000)
    early = old_push(retired, DraftJob, "debounce", "memo", ["memo", 1], score: due - 10, life: 3_000_000)
    later = new_push(current, DraftJob, "debounce", "memo", ["memo", 2], score: due)
    sync = old_push(retired, SyncJob, "dedupe", "sync", [1], life: 600_000)

    moved = Deckhand::Store::Tags::RetiredSweep.new(Deckhand.config.store).call
    assert_equal({"mail" => 3}, moved, "the two scheduled jobs and the enqueued one swept")

    doc_record = record(DraftJob, "doc", "debounce")
    assert_equal doc, cluster.call("HGET", doc_record, "jid"), "the record under the current tag names the swept job"
    assert_includes (2_900_000..3_000_000), cluster.call("PTTL", doc_record), "with the time it had left"
    assert_equal later, cluster.call("HGET", record(DraftJob, "memo", "debounce"), "jid"), "the record already there names the job due last"
    assert_equal [[doc, due], [later, due]].sort, scheduled(current).map { |job, score| [job["jid"], score] }.sort,
      "the swept job its record's current one outlived left the schedule"
    refute_includes scheduled(current).map { |job, _| job["jid"] }, early
    assert_equal sync, cluster.call("HGET", record(SyncJob, "sync", "dedupe"), "jid")
    assert_equal 0, cluster.call("EXISTS", *%w[doc memo].map { |key| record(DraftJob, key, "debounce").sub(current, retired) }),
      "nothing left under the retired tag"

    last = DraftJob.set(queue: "mail").perform_async("doc", 3)
    assert_equal [["doc", 3], ["memo", 2]], scheduled(current).map { |job, _| job["args"] }.sort, "a push of the key replaces the swept job"
    assert_equal last, cluster.call("HGET", doc_record, "jid")
    assert_nil SyncJob.set(queue: "mail").perform_async(2), "the swept dedupe window keeps a push out"
  end

  # A record whose job an earlier version's sweep moved without it: a
  # sweeper looks for each retired tag's records once, jobs swept or not.
  def test_a_record_left_behind_by_an_earlier_sweep_is_carried_by_the_first_sweep
    RecordJob.set(queue: "mail").perform_async(0)
    retired = keys.queue("mail")
    current = other_tag("mail")
    Deckhand::Store::Tags::QueueMove.new(Deckhand.config.store, timeout: 10).call("mail", to: current)
    doc = old_push(retired, DraftJob, "debounce", "doc", ["doc", 1], score: Time.now.to_f + 60, life: 3_000_000)
    entry = cluster.call("ZRANGE", Names.set(retired, "schedule"), 0, -1, "WITHSCORES").flatten
    cluster.call("ZADD", Names.set(current, "schedule"), entry[1], entry[0]) # the earlier sweep's move
    cluster.call("ZREM", Names.set(retired, "schedule"), entry[0])

    assert_equal({}, Deckhand::Store::Tags::RetiredSweep.new(Deckhand.config.store).call, "no job to sweep")
    assert_equal doc, cluster.call("HGET", record(DraftJob, "doc", "debounce"), "jid")
    DraftJob.set(queue: "mail").perform_async("doc", 2)
    assert_equal [["doc", 2]], scheduled(current).map { |job, _| job["args"] }, "a push of the key replaces the job"
  end

  private

  # What a push of an out-of-date process writes under `tag`: the job
  # (scheduled when `score` is given, else enqueued) and its record.
  def old_push(tag, klass, mode, key, args, life:, score: nil)
    jid = SecureRandom.hex(12)
    raw = JSON.generate("class" => klass.name, "args" => args, "jid" => jid, "queue" => "mail", mode => {"key" => key})
    score ? cluster.call("ZADD", Names.set(tag, "schedule"), score, raw) : cluster.call("LPUSH", tag, raw)
    name = record(klass, key, mode).sub(keys.queue("mail"), tag)
    cluster.call("HSET", name, "jid", jid, "payload", raw)
    cluster.call("PEXPIRE", name, life)
    jid
  end

  # The same under the current tag, by a process that follows the move.
  def new_push(tag, klass, mode, key, args, score:) = old_push(tag, klass, mode, key, args, life: 3_600_000, score: score)
end
