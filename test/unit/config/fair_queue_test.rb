# frozen_string_literal: true

require "test_helper"
require "support/reliability_helpers"
require "deckhand/api"

# Fair queues (docs/fair-queues.md): tenants' jobs served in fair shares by
# the reliable fetch, against a real Redis.
class FairQueueTest < Minitest::Test
  include Deckhand::ReliabilityHelpers

  class TenantJob
    include Deckhand::Job

    deckhand_options queue: "reports"

    def perform(account, n) = Deckhand::TestJobs.record([jid, account, n])
  end

  # Holds every thread until `wanted` run at once (or a few seconds pass):
  # the most that ran at once is what the fetch gave one tenant.
  class WideJob
    include Deckhand::Job

    deckhand_options queue: "reports"
    LOCK = Mutex.new
    @running = 0
    @most = 0
    class << self
      attr_accessor :running, :most
    end

    def perform(wanted, longest = 5)
      LOCK.synchronize { self.class.most = [self.class.most, self.class.running += 1].max }
      deadline = Process.clock_gettime(Process::CLOCK_MONOTONIC) + longest
      sleep 0.005 until LOCK.synchronize { self.class.most >= wanted } || Process.clock_gettime(Process::CLOCK_MONOTONIC) > deadline
      LOCK.synchronize { self.class.running -= 1 }
      Deckhand::TestJobs.record([jid])
    end
  end

  def setup
    super
    Deckhand.config = new_config(concurrency: 5, queues: ["reports"], heartbeat_interval: 0.5, heartbeat_ttl: 1, timeout: 2,
      fair_queues: {"reports" => {by: ->(job) { job["args"].first }, weights: {"heavy" => 3}}})
  end

  def push(tenant, count) = TenantJob.perform_bulk(Array.new(count) { |i| [tenant, i] })

  def run_all(count)
    with_server do |launcher|
      wait_for(timeout: 60, message: "#{count} jobs") { Deckhand::TestJobs.runs.size >= count }
      wait_for(message: "acknowledgements") { inflight_payloads(launcher.identity, ["reports"]).empty? }
    end
    Deckhand::TestJobs.runs
  end

  def test_a_tenant_behind_a_backlog_starts_before_the_backlog_s_hundredth_job
    push("a", 1000)
    push("b", 10)
    runs = run_all(1010)
    last_b = runs.rindex { |_, account, _| account == "b" }
    a_before = runs[0...last_b].count { |_, account, _| account == "a" }
    assert_operator a_before, :<, 100, "B's 10 jobs waited for #{a_before} of A's"
    assert_operator a_before, :<, 30, "served in turns, B's last job follows about ten of A's"
  end

  # Fairness orders the jobs still in Redis. The jobs of A the server had
  # fetched ahead before B arrived (a time slice of work, up to a thousand
  # of these on a slow machine) start first whatever their tenant; of A's
  # jobs still waiting once B pushed, only about one per B job goes before
  # B's last. A's jobs leave Redis in their push order, so the count of A's
  # waiting tells which of them were still there.
  def test_a_tenant_arriving_while_the_backlog_runs_is_served_at_once
    a_waiting = nil
    with_server do
      push("a", 1000)
      wait_for(message: "A's backlog under way") { Deckhand::TestJobs.runs.size >= 50 }
      push("b", 10)
      a_waiting = redis.call("HGET", keys.fair_tenants("reports"), "n:a").to_i
      wait_for(timeout: 60, message: "every job") { Deckhand::TestJobs.runs.size >= 1010 }
    end
    runs = Deckhand::TestJobs.runs
    first_b = runs.index { |_, account, _| account == "b" }
    last_b = runs.rindex { |_, account, _| account == "b" }
    a_between = runs[first_b..last_b].count { |_, account, _| account == "a" }
    still_waiting = runs[0..last_b].count { |_, account, n| account == "a" && n >= 1000 - a_waiting }
    assert_operator still_waiting, :<, 30, "A's jobs still in Redis when B pushed that started before B's last: #{still_waiting} " \
      "(#{a_waiting} of A's were waiting; A's jobs between B's first and last: #{a_between})"
  end

  def test_an_idle_server_starts_a_tenant_s_jobs_at_once
    with_server do
      sleep 0.3 # every queue empty: the server now waits inside Redis
      push("a", 30)
      push("b", 30)
      wait_for(timeout: 5, message: "60 jobs") { Deckhand::TestJobs.runs.size >= 60 }
    end
  end

  def test_without_fair_queues_the_same_backlog_is_first_in_first_out
    Deckhand.config = new_config(concurrency: 5, queues: ["reports"])
    push("a", 300)
    push("b", 10)
    runs = run_all(310)
    first_b = runs.index { |_, account, _| account == "b" }
    assert_operator first_b, :>=, 280, "FIFO: B waits for A's backlog (the failure the fair queue fixes)"
  end

  def test_weights_give_a_tenant_its_share_while_both_have_work
    push("heavy", 300)
    push("light", 300)
    first = run_all(600).first(200)
    heavy = first.count { |_, account, _| account == "heavy" }
    assert_in_delta 150, heavy, 12, "weight 3 against 1: three in four of the first 200"
  end

  def test_a_lone_tenant_gets_every_thread
    Deckhand.config = new_config(concurrency: 5, queues: ["reports"], fair_queues: {"reports" => {}})
    WideJob.running = WideJob.most = 0
    20.times { WideJob.set(tenant: "solo").perform_async(5) }
    with_server { wait_for(message: "20 jobs") { Deckhand::TestJobs.runs.size >= 20 } }
    assert_equal 5, WideJob.most
  end

  def test_every_job_of_many_tenants_runs_exactly_once_and_the_tenants_leave
    jids = (1..20).flat_map { |t| push("t#{t}", 100) }
    runs = run_all(2000)
    assert_equal 2000, runs.size
    assert_equal jids.sort, runs.map(&:first).sort
    assert_equal 0, redis.call("EXISTS", "deckhand:fair:reports")
    assert_equal ["~vt"], redis.call("HKEYS", "deckhand:tenants:reports"), "empty tenants leave the hash"
  end

  def test_size_counts_every_tenant_s_jobs
    push("a", 30)
    push("b", 5)
    TenantJob.set(queue: "reports").perform_async(nil, 0) # no tenant: the queue itself
    assert_equal 36, Deckhand::API::Queue.new("reports", Deckhand.config).size
    assert_equal 35, redis.call("ZCARD", "deckhand:fair:reports") + redis.call("LLEN", "queue:reports") - 1
  end

  def test_a_killed_process_s_jobs_of_a_fair_queue_are_recovered_and_run_once
    jids = push("a", 50) + push("b", 50)
    dead = "deadhost:4242:0dead"
    fetch = Deckhand::Store::Scripts::Fetch.new(Deckhand.config.store, identity: dead, queues: ["reports"])
    taken = fetch.call(limit: 30, sources: [[0, 1]], acks: []).flat_map(&:payloads)
    assert_equal 30, taken.size
    # A's first job found the queue empty and went straight onto it; the rest in turns.
    assert_equal({"a" => 16, "b" => 14}, taken.map { |raw| JSON.parse(raw)["args"].first }.tally)
    dead_process(dead, queues: ["reports"]) # its owner entry, no heartbeat
    wait_for_redis_uptime(2) # a process record may be missing only for being new
    assert_operator reaper.reap, :>=, 1
    assert_equal 100, Deckhand::API::Queue.new("reports", Deckhand.config).size
    runs = run_all(100)
    assert_equal jids.sort, runs.map(&:first).sort
  end

  def test_a_paused_fair_queue_keeps_its_tenants_jobs_until_resumed
    Deckhand.config = new_config(concurrency: 2, queues: %w[reports other], heartbeat_interval: 0.1)
    queue = Deckhand::API.new(Deckhand.config).queue("reports")
    queue.pause
    with_server do
      push("a", 20)
      push("b", 5)
      Deckhand::Client.push("class" => "RecordJob", "args" => ["other"], "queue" => "other")
      wait_for(message: "the other queue's job") { Deckhand::TestJobs.runs.size >= 1 }
      sleep 0.3 # a few heartbeats and fetches: the paused queue's jobs must still wait
      assert_equal 1, Deckhand::TestJobs.runs.size
      assert_equal 25, queue.size
      queue.resume
      wait_for(message: "the tenants' jobs after resume") { Deckhand::TestJobs.runs.size == 26 }
    end
  end

  def test_a_throttle_caps_a_fair_queue_as_one_queue
    Deckhand.config = new_config(concurrency: 5, queues: ["reports"], throttle: {"reports" => {concurrency: 2}}, fair_queues: {"reports" => {}})
    WideJob.running = WideJob.most = 0
    # Each job holds its thread until 5 run at once, or for 0.2 s: the cap lets 2.
    %w[a b c].each { |tenant| 4.times { WideJob.set(tenant: tenant).perform_async(5, 0.2) } }
    with_server { wait_for(message: "12 jobs") { Deckhand::TestJobs.runs.size >= 12 } }
    assert_equal 2, WideJob.most, "never more than the cap of 2 at once, whatever the tenant"
  end

  # Only a queue listed in fair_queues is fair: elsewhere "tenant" is the
  # application's own data and the job goes to its queue as ever.
  def test_a_tenant_on_a_queue_that_is_not_fair_is_data
    Deckhand.config = new_config(concurrency: 5, queues: ["reports"], fair_queues: {"other" => {}})
    TenantJob.set(tenant: "acme").perform_async("a", 1)
    Deckhand::Client.push("class" => "FairQueueTest::TenantJob", "queue" => "reports", "args" => ["b", 2], "tenant" => "globex")
    assert_equal 2, redis.call("LLEN", "queue:reports")
    assert_equal 0, redis.call("EXISTS", "deckhand:fair:reports", "deckhand:tenants:reports")
    assert_equal %w[acme globex], redis.call("LRANGE", "queue:reports", 0, -1).map { |raw| JSON.parse(raw)["tenant"] }.sort
  end

  def test_bad_settings_are_refused_with_the_fix
    error = assert_raises(Deckhand::ConfigError) { new_config(fair_queues: {"reports" => {by: 1}}) }
    assert_match(/by: must answer call\(job\)/, error.message)
    error = assert_raises(Deckhand::ConfigError) { new_config(fair_queues: {"reports" => {weights: {"a" => 0}}}) }
    assert_match(/a number above 0/, error.message)
    error = assert_raises(Deckhand::ConfigError) { new_config(fair_queues: {"reports" => {by_tenant: 1}}) }
    assert_match(/unknown key :by_tenant; known: by, weights/, error.message)
    error = assert_raises(Deckhand::InvalidJob) { TenantJob.set(tenant: "a\nb") }
    assert_match(/without a newline/, error.message)
  end
end
