# frozen_string_literal: true

require "test_helper"
require "deckhand/server"
require "deckhand/api"
require_relative "../support/cluster_helpers"

# Priority within a queue in cluster mode (docs/priority.md): each level's
# list and the queue's set of levels carry the queue's hash tag, so a push,
# the fetch and a hand back each stay in the queue's slot.
class ClusterPriorityTest < Minitest::Test
  include Deckhand::ClusterHelpers

  class RankedJob
    include Deckhand::Job

    def perform(n) = Deckhand::TestJobs.record(n)
  end

  def slot(key) = cluster.call("CLUSTER", "KEYSLOT", key)

  def test_priorities_run_in_order_with_their_keys_in_the_queues_slot
    Deckhand.config = new_config(concurrency: 1, queues: %w[reports exports], heartbeat_interval: 0.5, timeout: 2)
    levels = [nil, 4, -2, nil, -9, 4, -2].cycle.take(42).shuffle(random: Random.new(3))
    levels.each_with_index { |level, n| RankedJob.set(queue: "reports", priority: level).perform_async(n) }
    bulk = Deckhand::Client.push_bulk("class" => RankedJob, "queue" => "exports", "args" => [[100], [101]], "priority" => -1)
    [%w[reports -9], %w[reports 4], %w[exports -1]].each do |queue, level|
      assert_equal slot(keys.queue(queue)), slot(keys.priority(queue, level.to_i))
      assert_equal slot(keys.queue(queue)), slot(keys.priorities(queue))
    end
    assert_equal 2, cluster.call("LLEN", keys.priority("exports", -1))
    assert_equal 42, Deckhand::API.new.queue("reports").size
    with_server do
      wait_for(timeout: 60, message: "44 jobs") { Deckhand::TestJobs.runs.size >= 44 }
    end
    runs = Deckhand::TestJobs.runs
    expected = levels.each_with_index.sort_by { |level, n| [level || 0, n] }.map(&:last)
    assert_equal expected, runs - [100, 101], "lowest priority first, push order within one"
    assert_equal 2, bulk.compact.size
    assert_equal 0, Deckhand::API.new.queue("reports").size
  end

  # A queue move (Store::Tags::QueueMove) carries the lists of the queue's
  # levels, each level named under the new tag, and the held sets of the
  # classes paused: each job lands once, byte for byte, in its order, and a
  # server works the levels there lowest first.
  def test_a_queue_moves_with_its_levels_and_its_held_jobs
    names = Deckhand::Store::Layout::TagNames
    pauses = Deckhand::API.new.class_pauses
    pauses.pause("HeldReportJob")
    RankedJob.set(queue: "mail").perform_async(0)
    RankedJob.set(queue: "mail", priority: 7).perform_async(3)
    2.times { |n| RankedJob.set(queue: "mail", priority: -3).perform_async(n + 1) }
    from = keys.queue("mail")
    to = (1..9).map { |n| Deckhand::Store::Layout::Cluster.candidate("mail", n) }.find { |tag| slot(tag) != slot(from) }
    held = JSON.generate("class" => "HeldReportJob", "args" => ["caf\u00e9"], "jid" => "h" * 24, "queue" => "mail")
    cluster.call("ZADD", names.held(from, "HeldReportJob"), 5, held)
    waiting = [-3, 7].to_h { |level| [level, cluster.call("LRANGE", names.priority(from, level), 0, -1)] }

    result = Deckhand::Store::Tags::QueueMove.new(Deckhand.config.store, timeout: 10).call("mail", to: to)

    assert_equal [from, to, 5], [result.from, result.to, result.jobs], "the queue's job, its levels' three and the held one"
    assert_equal %w[-3 7], cluster.call("SMEMBERS", names.priorities(to)).sort
    waiting.each { |level, raws| assert_equal raws, cluster.call("LRANGE", names.priority(to, level), 0, -1), "level #{level}, as it was" }
    assert_equal [[held, 5.0]], cluster.call("ZRANGE", names.held(to, "HeldReportJob"), 0, -1, "WITHSCORES"), "scored as it was"
    assert_equal 0, cluster.call("EXISTS", names.priority(from, -3), names.priority(from, 7), names.held(from, "HeldReportJob"), from)
    assert_equal [1, 2, 0, 3], Deckhand::API.new.queue("mail").jobs.map { |job| job.args.first }, "listed in run order under the new tag"

    Deckhand.config = new_config(concurrency: 1, queues: %w[mail], heartbeat_interval: 0.5, timeout: 2)
    with_server do
      wait_for(timeout: 30, message: "the moved jobs") { Deckhand::TestJobs.runs.size >= 4 }
    end
    assert_equal [1, 2, 0, 3], Deckhand::TestJobs.runs, "lowest priority first, each once"
    assert_equal 1, pauses.resume("HeldReportJob")
    assert_equal [held], cluster.call("LRANGE", keys.queue("mail"), 0, -1), "the held job back in its queue under the new tag"
  end

  # The idle wait on a level's list: the list and the landing list share the
  # queue's slot, so the blocking move runs on its node. The cluster client
  # opens more than one connection for a waiter's first wait, which the
  # waiter takes for a reconnection: it looks at the landing list at once and
  # again LandingWatch::LATE later, each look waiting for the queue's own
  # wait on that list to end (up to IdleWaiter::TIMEOUT). Those looks are
  # over before the jobs timed here.
  def test_an_idle_server_starts_a_job_pushed_at_a_level_at_once
    Deckhand.config = new_config(concurrency: 1, queues: %w[reports], heartbeat_interval: 0.5, timeout: 2)
    RankedJob.set(queue: "reports", priority: -2).perform_async(0)
    with_server do
      wait_for(message: "the first job") { Deckhand::TestJobs.runs.size >= 1 }
      RankedJob.set(queue: "reports", priority: -2).perform_async(0) # the level's waiter's first wait
      wait_for(message: "the second job") { Deckhand::TestJobs.runs.size >= 2 }
      sleep Deckhand::Server::Fetch::Idle::LandingWatch::LATE + Deckhand::Server::Fetch::Idle::IdleWaiter::TIMEOUT
      waits = (1..5).map do |n|
        sleep 0.3 # idle: the waiters are armed again
        pushed = monotonic
        RankedJob.set(queue: "reports", priority: -2).perform_async(n)
        wait_for(message: "job #{n}") { Deckhand::TestJobs.runs.size > n + 1 }
        monotonic - pushed
      end
      # The next look is Planner::IDLE_POLL (2 s) away: five jobs all started
      # within half of it were woken for, not found by chance.
      assert_operator waits.max, :<, Deckhand::Server::Fetch::Planner::IDLE_POLL / 2,
        "each job started at once, not at the next look (#{waits.map { |w| w.round(3) }})"
    end
  end

  # Due, a scheduled job goes to its level's list in its queue's slot; the
  # queue's own list is named first, where schedule.lua looks for it.
  def test_a_scheduled_job_waits_at_its_level_once_due
    RankedJob.set(queue: "reports", priority: -4).perform_in(0.1, 1)
    RankedJob.set(queue: "reports").perform_in(0.1, 2)
    # Due by the clock the push dated them by (Redis', Store::Clock), not this
    # host's; this process' reading of it may lag under load, so it is asked
    # again until both moved.
    schedule = Deckhand::Store::Scripts::Schedule.new(Deckhand.config.store, queues: %w[reports])
    moved = 0
    wait_for(message: "both jobs due") do
      moved += schedule.call(now: Deckhand.config.store.clock.now, limit: 10, stamp: "1").first
      moved >= 2
    end
    assert_equal 2, moved
    assert_equal [[1]], cluster.call("LRANGE", keys.priority("reports", -4), 0, -1).map { |raw| JSON.parse(raw)["args"] }
    assert_equal [[2]], jobs_in("reports").map { |job| job["args"] }
    assert_equal ["-4"], cluster.call("SMEMBERS", keys.priorities("reports"))
  end
end
