# frozen_string_literal: true

require "test_helper"
require "deckhand/api"

# Priority within a queue (docs/priority.md), against a real Redis: jobs of
# a lower priority run first, in push order within one priority; jobs
# without one wait in the queue itself, as priority 0.
class PriorityTest < Minitest::Test
  class RankedJob
    include Deckhand::Job

    def perform(n, pause = 0)
      sleep pause
      Deckhand::TestJobs.record(n)
    end
  end

  def setup
    super
    Deckhand.config = new_config(concurrency: 1, queues: ["default"], heartbeat_interval: 0.5, timeout: 2)
  end

  def keys = Deckhand.config.store.layout

  # 60 jobs at six priorities (nil is the queue's own, as 0), pushed in a
  # shuffled order of priorities with their push order as their argument.
  def push_mixed
    levels = [nil, 5, -3, 0, -20, 5, -3, nil, 100, -3].cycle.take(60).shuffle(random: Random.new(7))
    levels.each_with_index { |level, n| RankedJob.set(priority: level).perform_async(n) }
    levels.each_with_index.sort_by { |level, n| [level || 0, n] }.map(&:last)
  end

  def run_all(count)
    with_server do |launcher|
      wait_for(timeout: 60, message: "#{count} jobs") { Deckhand::TestJobs.runs.size >= count }
      wait_for(message: "acknowledgements") { inflight_payloads(launcher.identity, ["default"]).empty? }
    end
    Deckhand::TestJobs.runs
  end

  def test_lower_priorities_run_first_and_each_priority_in_push_order
    expected = push_mixed
    assert_equal 60, Deckhand::API.new.queue("default").size, "the queue's size counts its jobs with a priority"
    assert_equal expected, run_all(60)
    assert_equal 0, Deckhand::API.new.queue("default").size
    [-20, -3, 5, 100].each { |level| assert_equal 0, redis.call("LLEN", keys.priority("default", level)) }
  end

  def test_a_job_pushed_with_a_priority_while_the_server_runs_goes_ahead_of_the_queue
    RankedJob.set(priority: -1).perform_async(-1) # the level is named before the server reads it
    with_server do
      wait_for(message: "the first job") { Deckhand::TestJobs.runs.size >= 1 }
      Deckhand::Client.push_bulk("class" => RankedJob, "args" => (1..200).map { |n| [n, 0.005] })
      wait_for(message: "a few of the backlog") { Deckhand::TestJobs.runs.size >= 5 }
      RankedJob.set(priority: -1).perform_async(0)
      wait_for(timeout: 60, message: "every job") { Deckhand::TestJobs.runs.size >= 202 }
    end
    runs = Deckhand::TestJobs.runs
    assert_equal [-1, *0..200], runs.sort
    behind = runs.index(0) - runs.index(5)
    assert_operator behind, :<, 50, "the urgent job waited only for the few jobs the server had fetched ahead, not the backlog (#{behind})"
  end

  # An idle server blocks on each level's list as on the queue's own, so a
  # job pushed at a level it knows starts at once, not at the fetcher's own
  # look (every 2 s).
  def test_an_idle_server_starts_a_job_pushed_at_a_level_at_once
    RankedJob.set(priority: -2).perform_async(0) # names the level before the server reads it
    with_server do
      wait_for(message: "the first job") { Deckhand::TestJobs.runs.size >= 1 }
      waits = (1..5).map do |n|
        sleep 0.3 # idle: the waiters are armed again
        pushed = monotonic
        RankedJob.set(priority: -2).perform_async(n)
        wait_for(message: "job #{n}") { Deckhand::TestJobs.runs.size > n }
        monotonic - pushed
      end
      # The next look is Planner::IDLE_POLL (2 s) away: five jobs all started
      # within half of it were woken for, not found by chance.
      assert_operator waits.max, :<, Deckhand::Server::Fetch::Planner::IDLE_POLL / 2,
        "each job started at once, not at the next look (#{waits.map { |w| w.round(3) }})"
    end
  end

  def test_a_queue_never_given_a_priority_keeps_sidekiqs_layout
    RankedJob.perform_async(1)
    RankedJob.set(priority: 0).perform_async(2)
    assert_equal ["queue:default", "queues"], redis.call("KEYS", "*").sort
    assert_equal [1, 2], run_all(2)
  end

  def test_each_level_is_a_list_a_sidekiq_process_can_read_as_a_queue
    RankedJob.set(priority: -5).perform_async(1)
    assert_equal keys.queue("default~r-5"), keys.priority("default", -5)
    raw = redis.call("RPOP", "queue:default~r-5")
    assert_equal [1], JSON.parse(raw)["args"]
    assert_equal(-5, JSON.parse(raw)["priority"])
    assert_equal ["-5"], redis.call("SMEMBERS", keys.priorities("default"))
  end

  def test_a_bad_priority_is_refused_where_it_is_given
    error = assert_raises(ArgumentError) { RankedJob.set(priority: "high") }
    assert_match(/priority: "high" is not valid; give an Integer from -100/, error.message)
    error = assert_raises(Deckhand::InvalidJob) { Deckhand::Client.push("class" => "RankedJob", "args" => [1], "priority" => 101) }
    assert_match(/priority for RankedJob must be an Integer from -100 \(runs first\) to 100/, error.message)
    assert_raises(Deckhand::InvalidJob) { Deckhand::Client.push_bulk("class" => "RankedJob", "args" => [[1]], "priority" => 1.5) }
    assert_empty redis.call("KEYS", "*")
  end

  def test_clearing_a_queue_deletes_its_jobs_with_a_priority
    RankedJob.set(priority: 3).perform_async(1)
    RankedJob.perform_async(2)
    queue = Deckhand::API.new.queue("default")
    assert_equal 2, queue.size
    queue.clear
    assert_equal 0, Deckhand::API.new.queue("default").size
    assert_equal 0, redis.call("LLEN", keys.priority("default", 3))
  end

  # The dashboard's list of queues: the size with the jobs of every level,
  # and the job that runs next.
  def test_the_queue_summary_counts_every_level_and_shows_the_next_job
    RankedJob.perform_async(1)
    RankedJob.set(priority: 7).perform_async(2)
    RankedJob.set(priority: -7).perform_async(3)
    name, size, oldest, paused = Deckhand::Store::Jobs::Queues.summaries(Deckhand.config.store, ["default"]).first
    assert_equal ["default", 3, [3], false], [name, size, JSON.parse(oldest)["args"], paused]
  end

  def test_bulk_and_marked_pushes_file_jobs_at_their_level
    jids = Deckhand::Client.push_bulk("class" => "PriorityTest::RankedJob", "args" => [[1], [2]], "priority" => -2)
    jids += RankedJob.set(priority: -2).perform_bulk([[3]])
    assert_equal jids, redis.call("LRANGE", keys.priority("default", -2), 0, -1).reverse.map { |raw| JSON.parse(raw)["jid"] }
    assert_equal 0, redis.call("LLEN", keys.queue("default"))
    assert_equal [1, 2, 3], run_all(3)
  end

  # Naming the level is bookkeeping, as listing the queue is: when Redis
  # refuses it the jobs are queued once all the same, and the log says how
  # to fix the key (a push that raised would be pushed again, twice queued).
  def test_a_refused_set_of_levels_is_a_warning_and_the_jobs_are_queued_once
    log = StringIO.new
    Deckhand.config.logger = Logger.new(log)
    redis.call("SET", keys.priorities("default"), "not a set")
    RankedJob.set(priority: 4).perform_async(1)
    Deckhand::Client.push_bulk("class" => "PriorityTest::RankedJob", "args" => [[2]], "priority" => 4)
    assert_equal 2, redis.call("LLEN", keys.priority("default", 4))
    assert_match(/jobs with a priority were queued, but Redis refused to name their level.*WRONGTYPE.*do not push them again/, log.string)
    assert_equal 1, log.string.scan("refused to name their level").size, "once a minute at most"
    redis.call("DEL", keys.priorities("default"))
    RankedJob.set(priority: 4).perform_async(3)
    assert_equal [1, 2, 3], run_all(3), "the next push named the level: every job ran"
  end

  # A partitioned queue: each partition has its levels, each fetched in its
  # partition's place.
  def test_a_partitioned_queues_jobs_wait_at_their_level_in_their_partition
    Deckhand.config = new_config(concurrency: 1, queues: ["default"], heartbeat_interval: 0.5, timeout: 2, partitions: {"default" => 2})
    RankedJob.set(priority: -1).perform_bulk([[1], [2], [3], [4]])
    RankedJob.perform_bulk([[5], [6]])
    assert_equal [2, 2], ["default", "default~p1"].map { |list| redis.call("LLEN", keys.priority(list, -1)) }
    runs = run_all(6)
    assert_equal [1, 2, 3, 4], runs.first(4).sort, "the jobs at -1 first, whichever partition's turn it is"
  end

  # A fair queue: a job with a tenant waits in its tenant's turn (its
  # priority unused); one with a priority and no tenant waits at its level,
  # ahead of the queue's own list and the tenants' jobs.
  def test_on_a_fair_queue_a_tenant_s_job_takes_its_turn_and_a_job_of_no_tenant_its_level
    Deckhand.config = new_config(concurrency: 1, queues: ["default"], heartbeat_interval: 0.5, timeout: 2, fair_queues: {"default" => {}})
    RankedJob.set(tenant: "acme").perform_bulk([[1], [2]])
    RankedJob.set(tenant: "acme", priority: -9).perform_async(3)
    RankedJob.set(priority: -9).perform_async(4)
    assert_equal 1, redis.call("LLEN", keys.priority("default", -9))
    assert_equal [4, 1, 2, 3], run_all(4)
  end

  def test_a_job_waiting_at_a_level_is_cancelled_out_of_its_list
    jid = RankedJob.set(priority: 6).perform_async(1)
    other = RankedJob.set(priority: 6).perform_async(2)
    assert_equal :removed_from_queue, Deckhand::Client.cancel(jid)
    assert_equal [other], redis.call("LRANGE", keys.priority("default", 6), 0, -1).map { |raw| JSON.parse(raw)["jid"] }
    assert_equal "queue", Deckhand::API.new.cancellation(jid).where
  end

  # A scheduled job and a retry keep their priority: due, each goes to its
  # level's list, its level named first.
  def test_a_scheduled_job_and_a_retry_wait_at_their_level_once_due
    Deckhand.config = new_config(concurrency: 1, queues: ["default"], heartbeat_interval: 0.5, timeout: 2, scheduler_interval: 0.1)
    RankedJob.perform_bulk([[1], [2]])
    RankedJob.set(priority: -4).perform_in(0.2, 3)
    redis.call("ZADD", "retry", 0, JSON.generate("class" => "PriorityTest::RankedJob", "args" => [4], "jid" => "r" * 24,
      "queue" => "default", "priority" => -4, "retry" => true, "retry_count" => 0, "enqueued_at" => 1))
    # Due by the clock the push dated them by (Redis', Store::Clock), not this
    # host's; this process' reading of it may lag under load, so it is asked
    # again until both moved.
    schedule = Deckhand::Store::Scripts::Schedule.new(Deckhand.config.store)
    moved = 0
    wait_for(message: "both jobs due") do
      moved += schedule.call(now: Deckhand.config.store.clock.now, limit: 10, stamp: "1").first
      moved >= 2
    end
    assert_equal 2, moved
    assert_equal [[3], [4]].sort, redis.call("LRANGE", keys.priority("default", -4), 0, -1).map { |raw| JSON.parse(raw)["args"] }.sort
    assert_equal ["-4"], redis.call("SMEMBERS", keys.priorities("default"))
    assert_equal [3, 4], run_all(4).first(2).sort
  end
end
