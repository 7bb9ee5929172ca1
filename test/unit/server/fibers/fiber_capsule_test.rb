# frozen_string_literal: true

require "test_helper"
require "net/http"
require "timeout"
require_relative "../../../support/fiber_jobs"
require_relative "../../../support/gated_http_server"

# A fiber capsule (fibers: true) runs its jobs as pooled fibers on one thread
# under async's scheduler, with the fetch, acknowledgement, retry and
# shutdown paths of thread capsules.
class FiberCapsuleTest < Minitest::Test
  def setup
    super
    skip_on_jruby("fiber capsules refuse to start there (test/unit/server/fibers/fiber_config_test.rb)")
    Deckhand::Crowd.reset
    @log = StringIO.new
    Deckhand.config = new_config(concurrency: 1, heartbeat_interval: 0.2, timeout: 1)
    Deckhand.config.logger = Logger.new(@log)
  end

  def queues = %w[default io]

  def fibers(concurrency) = Deckhand.config.capsule("io", concurrency: concurrency, queues: ["io"], fibers: true)

  def test_a_thousand_sleeping_jobs_sleep_at_once_on_one_thread
    fibers(1000)
    Deckhand::Client.push_bulk("class" => "CrowdSleepJob", "queue" => "io", "args" => Array.new(1000) { [1000, 1] })
    with_server do
      wait_for(message: "1,000 jobs slept") { Deckhand::TestJobs.runs.size == 1000 }
      slept = monotonic - Deckhand::Crowd.full_at
      assert_equal 1000, Deckhand::Crowd.widest
      assert_equal 1, Deckhand::Crowd.threads.size, "every fiber runs on the reactor's one thread"
      assert Deckhand::TestJobs.runs.all? { |_, _, kind| kind == :fiber }
      assert_operator slept, :<, 4, "1,000 sleeps of 1 s at once take about one (#{slept.round(2)}s)"
    end
    assert_match(/io\(1000 fibers: io\)/, @log.string)
  end

  # Auto-balance times jobs by their thread's CPU clock, which a fiber
  # capsule's jobs share: a server says so when both are set.
  def test_auto_balance_with_a_fiber_capsule_is_named_in_a_warning
    Deckhand.config = new_config(concurrency: 1, heartbeat_interval: 0.2, timeout: 1, auto_balance: true)
    Deckhand.config.logger = Logger.new(@log)
    fibers(5)
    with_server do
      jid = RecordJob.set(queue: "io").perform_async("x")
      wait_for(message: "the job run on the fiber capsule") { Deckhand::TestJobs.runs.include?([jid, ["x"]]) }
    end
    assert_includes @log.string, "auto_balance with the fiber capsule io: its jobs share one thread's CPU clock"
  end

  def test_a_failing_job_is_retried
    fibers(5)
    jid = FailJob.set(queue: "io").perform_async("x")
    with_server do
      job = wait_for(message: "the retry record") { zset("retry").map(&:first).find { |j| j["jid"] == jid } }
      assert_equal "ArgumentError", job["error_class"]
      assert_equal "io", job["queue"]
    end
  end

  def test_a_timeout_inside_a_job_fails_it_and_it_retries
    fibers(20)
    Deckhand::Client.push_bulk("class" => "TimeoutJob", "queue" => "io", "args" => Array.new(20) { [0.3] })
    with_server do
      wait_for(message: "20 timed-out jobs in the retry set") { zset("retry").size == 20 }
    end
    assert_equal ["Timeout::Error"], zset("retry").map { |job, _| job["error_class"] }.uniq
  end

  def test_shutdown_interrupts_running_jobs_and_hands_them_back
    fibers(50)
    Deckhand::Client.push_bulk("class" => "CrowdSleepJob", "queue" => "io", "args" => Array.new(20) { [20, 60] })
    launcher = Deckhand::Server::Launcher.new(Deckhand.config.freeze!).start
    wait_for(message: "20 jobs running") { Deckhand::Crowd.widest == 20 }
    assert_equal 20, launcher.stats.busy, "each fiber shows as a worker of its own (the Busy page)"
    started = monotonic
    launcher.stop
    assert_operator monotonic - started, :<, 5, "the timeout (1 s), then the interrupt"
    assert_equal 20, jobs_in("io").size, "every interrupted job is back in its queue"
    assert_empty Deckhand::TestJobs.runs
    assert_empty zset("retry")
    assert_empty inflight_keys(launcher.identity)
    assert_match(/20 jobs still running after 1s/, @log.string)
  end

  def test_redis_calls_from_a_thousand_fibers_share_a_few_connections
    fibers(1000)
    assert_equal 1 + 20 + 5, Deckhand.config.store.size, "a fiber capsule counts as 20 Redis users"
    Deckhand::Client.push_bulk("class" => "CrowdPushJob", "queue" => "io", "args" => Array.new(1000) { |i| [1000, i] })
    with_server do |launcher|
      wait_for(message: "1,000 pushed jobs run") { Deckhand::TestJobs.runs.size == 1000 }
      assert_equal (0...1000).to_a, Deckhand::TestJobs.runs.map { |_, args| args.last }.sort
      name = Deckhand::Store::Connection::Clients.name_of(launcher.identity)
      pooled = redis.call("CLIENT", "LIST").lines.count { |line| line.include?(" name=#{name} ") }
      # The pool's 26, the idle waiters' own and the fetcher's side connections.
      assert_operator pooled, :<=, 26 + 5, "the server's connections stay near its pool's size"
    end
  end

  def test_blocking_redis_client_calls_wait_together
    fibers(50)
    Deckhand::Client.push_bulk("class" => "BlpopJob", "queue" => "io", "args" => Array.new(50) { [Deckhand::RedisHarness.url, 1] })
    with_server do
      wait_for(message: "50 waits in Redis") { Deckhand::TestJobs.runs.size == 50 }
      waited = Deckhand::TestJobs.runs.map(&:last)
      assert_operator waited.max - waited.min, :<, 3, "50 one-second BLPOPs ran side by side, not one after another"
    end
  end

  def test_pipes_read_through_the_scheduler
    fibers(20)
    Deckhand::Client.push_bulk("class" => "PipeJob", "queue" => "io", "args" => Array.new(20) { [0.5] })
    with_server do
      wait_for(message: "20 children read") { Deckhand::TestJobs.runs.size == 20 }
    end
    assert_equal ["ok\n"], Deckhand::TestJobs.runs.map(&:last).uniq
    assert_empty zset("retry")
  end

  def test_net_http_requests_run_concurrently
    fibers(100)
    server = Deckhand::GatedHttpServer.new(100)
    Deckhand::Client.push_bulk("class" => "HttpJob", "queue" => "io", "args" => Array.new(100) { [server.port] })
    with_server do
      wait_for(message: "100 answers") { Deckhand::TestJobs.runs.size == 100 }
    end
    assert_equal 100, server.widest, "all 100 requests were open at once"
    assert_equal ["ok"], Deckhand::TestJobs.runs.map(&:last).uniq
  ensure
    server&.close
  end
end
