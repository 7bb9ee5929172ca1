# frozen_string_literal: true

require "test_helper"
require "deckhand/api"
require "deckhand/server"
require_relative "../support/cluster_helpers"

# A fair queue's tenants' jobs move with their queue (Store::Tags::QueueMove,
# Scripts::MoveFairTake and MoveFairPut): each job lands once under the new
# tag, keeps its lead over the queue's virtual time, and its tenant's count
# and last score come along, so the tenants keep their turns.
class ClusterFairQueueMoveTest < Minitest::Test
  include Deckhand::ClusterHelpers

  # A job that takes a moment, so a backlog is still waiting when the move
  # pauses the queue.
  class SlowRecordJob
    include Deckhand::Job

    def perform(*args)
      Deckhand::TestJobs.record([jid, args])
      sleep 0.004
    end
  end

  PLACEMENT = Deckhand::Store::Layout::Cluster::PLACEMENT
  Scripts = Deckhand::Store::Scripts
  Moves = Deckhand::Store::Tags::QueuePlacement::Moves

  def setup
    super
    Deckhand::TestJobs.reset
    Deckhand.config = new_config(heartbeat_interval: 0.2, concurrency: 2, queues: %w[reports], fair_queues: {"reports" => {}})
  end

  def push(tenant, count, job: "RecordJob")
    Deckhand::Client.push_bulk("class" => job, "queue" => "reports", "tenant" => tenant, "args" => Array.new(count) { |i| [tenant, i] })
  end

  def fair(tag) = cluster.call("ZRANGE", "#{tag}:fair", 0, -1, "WITHSCORES")

  def tenants(tag) = cluster.call("HGETALL", "#{tag}:tenants")

  def test_a_fair_queue_moves_while_worked_each_job_once_and_its_tenants_keep_their_turns
    old_tag = keys.queue("reports")
    jids = push("deep", 1000, job: SlowRecordJob.name) + push("shallow", 200, job: SlowRecordJob.name)
    result = nil
    with_server do
      wait_for(message: "jobs to run before the move") { Deckhand::TestJobs.runs.size > 40 }
      result = Deckhand::API.new.queue_moves(timeout: 30).move("reports")
      wait_for(timeout: 60, message: "every job to run") { Deckhand::TestJobs.runs.size >= jids.size }
    end
    runs = Deckhand::TestJobs.runs
    assert_equal jids.sort, runs.map(&:first).sort, "every job ran exactly once"
    assert_operator result.jobs, :>, 500, "the tenants' jobs waiting were carried"
    order = runs.map { |_, (tenant)| tenant }
    assert_operator order[0...order.rindex("shallow")].count("deep"), :<, 400,
      "the shallow tenant's last jobs, moved, did not wait behind the deep one's"
    assert_equal 0, cluster.call("EXISTS", old_tag, "#{old_tag}:fair", "#{old_tag}:tenants"), "nothing left under the old tag"
    assert_equal 0, cluster.call("EXISTS", "#{result.to}:fair")
    assert_equal ["~vt"], cluster.call("HKEYS", "#{result.to}:tenants"), "every tenant counted out as its jobs ran"
  end

  # A mover that died after taking a batch, before writing it: the next
  # run writes it, each job once, scored against the new tag's clock.
  def test_a_batch_taken_by_a_mover_that_died_lands_once
    from, to = waiting_under_the_old_tag
    id, vt, *taken = Scripts::MoveFairTake.new(Deckhand.config.store).call(from, 4, "dead-mover")
    assert_equal ["dead-mover", "20", 8], [id, vt, taken.size], "four jobs held with the clock they were scored against"
    assert_moved_once(from, to)
  end

  # A mover that died after writing a batch, before releasing it: the next
  # run finds its marker and writes it no second time. The batch found the
  # new tag empty: its first job went straight onto the queue, as a push's.
  def test_a_batch_written_by_a_mover_that_died_is_not_written_again
    from, to = waiting_under_the_old_tag
    store = Deckhand.config.store
    id, vt, *taken = Scripts::MoveFairTake.new(store).call(from, 4, "dead-mover")
    assert_equal 4, Scripts::MoveFairPut.new(store).call(to, "#{to}:moved:#{id}", vt, taken, 60)
    assert_equal [taken.first.split("\n", 2).last], cluster.call("LRANGE", to, 0, -1)
    assert_moved_once(from, to, straight: 1)
  end

  # A process that does not follow placement pushed tenants' jobs under a
  # tag a move retired: the servers' sweep carries them with their counts.
  def test_tenants_jobs_pushed_under_a_retired_tag_are_swept_to_the_current_one
    old = keys.queue("reports")
    now = Deckhand::Store::Layout::Cluster.candidate("reports", 2)
    push("a", 1) # straight onto the list: nothing waited
    push("a", 2)
    push("b", 1)
    cluster.call("HSET", PLACEMENT, "reports", now)
    cluster.call("HSET", Moves::RETIRED, old, "reports")
    assert_equal({old => ["reports", 4]}, Deckhand::API.new.queue_moves.stranded)

    config = new_config
    assert_equal({"reports" => 4}, Deckhand::Server::Chores::RetiredSweeper.build(config: config, store: config.store).sweep)
    assert_equal 1, cluster.call("LLEN", now)
    assert_equal [["a", 1.0], ["b", 1.0], ["a", 2.0]], fair(now).map { |member, score| [member.split("\n").first, score] }
    assert_equal({"n:a" => "2", "f:a" => "2", "n:b" => "1", "f:b" => "1"}, tenants(now))
    assert_equal 0, cluster.call("EXISTS", old, "#{old}:fair", "#{old}:tenants")
    assert_equal({}, Deckhand::API.new.queue_moves.stranded)
  end

  private

  # Tenants' jobs waiting under the queue's tag, scored against a clock at
  # 20 (the queue was worked before), and a move of it cut short after its
  # switch, to a tag whose clock is at 100 (worked since): [from, to].
  def waiting_under_the_old_tag
    from = keys.queue("reports")
    to = Deckhand::Store::Layout::Cluster.candidate("reports", 1)
    cluster.call("HSET", "#{from}:tenants", "~vt", 20)
    @jids = push("deep", 6) + push("shallow", 3) # the first straight onto the list
    @before = fair(from)
    cluster.call("HSET", "#{to}:tenants", "~vt", 100)
    Moves.record(Deckhand.config.store, "reports", "from" => from, "to" => to, "step" => "copy")
    cluster.call("HSET", PLACEMENT, "reports", to)
    [from, to]
  end

  # straight: how many of the tenants' jobs went onto the new tag's queue.
  def assert_moved_once(from, to, straight: 0)
    result = Deckhand::API.new.queue_moves(timeout: 5).move("reports")

    assert_equal 9, result.jobs, "the batch held counts, once"
    assert_equal 1 + straight, cluster.call("LLEN", to)
    assert_equal @jids.sort, (cluster.call("LRANGE", to, 0, -1) + fair(to).map { |member, _| member.split("\n", 2).last }).map { |raw| JSON.parse(raw)["jid"] }.sort,
      "each job once"
    assert_equal @before.drop(straight).map { |member, score| [member, score + 80] }, fair(to),
      "each keeps its lead over the clock: the same order, 80 later"
    assert_equal({"~vt" => "100", "n:deep" => (5 - straight).to_s, "f:deep" => "105", "n:shallow" => "3", "f:shallow" => "103"}, tenants(to))
    held = ["#{from}:fair:moving:batch", "#{from}:fair:moving:id"]
    assert_equal 0, cluster.call("EXISTS", from, "#{from}:fair", "#{from}:tenants", *held), "nothing left under the old tag, no batch held"
    assert_operator cluster.call("TTL", "#{to}:moved:dead-mover"), :>, 0, "the marker expires by itself"
    assert_empty Deckhand::API.new.queue_moves.under_way
  end
end
