# frozen_string_literal: true

require "test_helper"

class ServerTest < Minitest::Test
  def setup
    super
    Deckhand.config = new_config(concurrency: 5, heartbeat_interval: 0.1, scheduler_interval: 0.05, timeout: 2)
  end

  def inflight(launcher) = inflight_payloads(launcher.identity, launcher.config.all_capsules.flat_map(&:queues).uniq)

  def test_ten_thousand_bulk_jobs_run_exactly_once
    jids = RecordJob.perform_bulk(Array.new(10_000) { |i| [i] })
    with_server do |launcher|
      wait_for(timeout: 30, message: "10,000 jobs") { Deckhand::TestJobs.runs.size >= 10_000 }
      wait_for(message: "acknowledgements") { inflight(launcher).empty? }
    end
    runs = Deckhand::TestJobs.runs
    assert_equal 10_000, runs.size
    assert_equal jids.sort, runs.map(&:first).sort
    assert_equal (0...10_000).to_a, runs.map { |_, args| args.first }.sort
    assert_equal 0, redis.call("LLEN", "queue:default")
  end

  def test_idle_server_starts_a_pushed_job_at_once
    with_server do
      sleep 0.3 # every queue empty: the server now waits inside Redis
      jid = RecordJob.perform_async("wake")
      wait_for(timeout: 2, message: "the job") { Deckhand::TestJobs.runs.any? { |j, _| j == jid } }
    end
  end

  def test_failed_job_lands_in_retry_with_sidekiq_fields_then_runs_again
    jid = FailJob.perform_async("x")
    with_server do |launcher|
      wait_for(message: "retry entry") { redis.call("ZCARD", "retry") == 1 }
      job, score = zset("retry").first
      assert_equal jid, job["jid"]
      assert_equal "ArgumentError", job["error_class"]
      assert_equal "failed on purpose: [\"x\"]", job["error_message"]
      assert_equal 0, job["retry_count"]
      assert_equal "default", job["queue"]
      assert_kind_of Integer, job["failed_at"]
      assert_includes Deckhand::Payload::Backtrace.expand(job["error_backtrace"]).first, "jobs.rb"
      assert_in_delta Time.now.to_f + 15, score, 10 * 1 + 2 # 0**4 + 15 + rand(10) * 1
      assert_empty inflight(launcher)

      redis.call("ZADD", "retry", Time.now.to_f - 1, redis.call("ZRANGE", "retry", 0, 0).first) # due now
      wait_for(message: "second run") { Deckhand::TestJobs.runs.size >= 2 }
      wait_for(message: "second failure") { zset("retry").first&.first&.dig("retry_count") == 1 }
      job = zset("retry").first.first
      assert_kind_of Integer, job["retried_at"]
    end
  end

  def test_exhausted_retries_go_dead_and_call_hooks
    deaths = Queue.new
    exhausted = Queue.new
    job_class = Class.new(FailJob) do
      deckhand_options retry: 0
      deckhand_retries_exhausted { |payload, error| exhausted << [payload["jid"], error.class] }
    end
    Object.const_set(:ExhaustOnceJob, job_class) unless defined?(ExhaustOnceJob)
    Deckhand.config.on_death { |payload, error| deaths << [payload["jid"], error.message] }
    jid = ExhaustOnceJob.perform_async(1)
    with_server do
      wait_for(message: "dead entry") { redis.call("ZCARD", "dead") == 1 }
    end
    assert_equal [jid, ArgumentError], exhausted.pop
    assert_equal jid, deaths.pop.first
    assert_equal jid, zset("dead").first.first["jid"]
    assert_equal 0, redis.call("ZCARD", "retry")
  end

  def test_retries_exhausted_returning_discard_drops_the_job_without_a_death
    deaths = Queue.new
    exhausted = Queue.new
    job_class = Class.new(FailJob) do
      deckhand_options retry: 0
      deckhand_retries_exhausted { |payload, _error| (exhausted << payload["jid"]) && :discard }
    end
    Object.const_set(:ExhaustDiscardJob, job_class) unless defined?(ExhaustDiscardJob)
    Deckhand.config.on_death { |payload, _error| deaths << payload["jid"] }
    jid = ExhaustDiscardJob.perform_async(1)
    with_server do |launcher|
      wait_for(message: "retries exhausted") { exhausted.size == 1 }
      wait_for(message: "ack") { inflight(launcher).empty? }
    end
    assert_equal jid, exhausted.pop
    assert_equal 0, redis.call("ZCARD", "dead") + redis.call("ZCARD", "retry") + redis.call("LLEN", "queue:default")
    assert_empty deaths
  end

  def test_with_death_handlers_on_discard_a_discarded_job_reaches_them_marked_discarded
    job_class = Class.new(FailJob) do
      deckhand_options retry: 0
      deckhand_retries_exhausted { |_payload, _error| :discard }
    end
    Object.const_set(:ExhaustDiscardNotifiedJob, job_class) unless defined?(ExhaustDiscardNotifiedJob)
    deaths = Queue.new
    Deckhand.config.death_handlers_on_discard = true
    Deckhand.config.on_death { |payload, error| deaths << [payload["class"], payload["discarded_at"], error.message] }
    ExhaustDiscardNotifiedJob.perform_async(1)
    CustomDelayJob.perform_async("discard")
    with_server { wait_for(message: "two deaths") { deaths.size == 2 } }
    reported = Array.new(2) { deaths.pop }.sort_by(&:first)
    assert_equal [["ExhaustDiscardNotifiedJob", "failed on purpose: [1]"], ["ServerTest::CustomDelayJob", "discard"]], reported.map { |klass, _, message| [klass, message] }
    reported.each { |_, discarded_at, _| assert_in_delta Time.now.to_f * 1000, discarded_at, 60_000 }
    assert_equal 0, redis.call("ZCARD", "dead") + redis.call("ZCARD", "retry") + redis.call("LLEN", "queue:default")
    assert_raises(Deckhand::ConfigError) { Deckhand::Config.new(death_handlers_on_discard: "yes") }
  end

  # Before the outcome is written: a handler that records the news first
  # loses nothing when the process dies in between.
  def test_final_failure_handlers_hear_each_death_and_drop_before_it_is_written
    heard = Queue.new
    Deckhand.config.on_final_failure do |payload, error, outcome|
      probe = RedisClient.new(url: Deckhand::RedisHarness.url)
      written = probe.call("ZRANGE", "dead", 0, -1).any? { |raw| JSON.parse(raw)["jid"] == payload["jid"] }
      probe.close
      heard << [payload["args"].first, outcome, error.message, written]
    end
    CustomDelayJob.perform_async("discard")
    CustomDelayJob.perform_async("kill")
    CustomDelayJob.perform_async("later")
    with_server do
      wait_for(message: "two final failures") { heard.size == 2 }
      wait_for(message: "the retry") { redis.call("ZCARD", "retry") == 1 }
      sleep 0.2
    end
    assert_equal [["discard", :dropped, "discard", false], ["kill", :dead, "kill", false]], Array.new(2) { heard.pop }.sort
    assert heard.empty?, "a job retried later is not a final failure"
    assert_equal 1, redis.call("ZCARD", "dead")
  end

  class CustomDelayJob
    include Deckhand::Job

    deckhand_retry_in do |_count, error, _payload|
      case error.message
      when "discard" then :discard
      when "kill" then :kill
      else 1000
      end
    end

    def perform(what) = raise(what)
  end

  def test_retry_in_can_delay_discard_or_kill
    CustomDelayJob.perform_async("later")
    CustomDelayJob.perform_async("discard")
    CustomDelayJob.perform_async("kill")
    with_server do
      wait_for(message: "outcomes") { redis.call("ZCARD", "retry") == 1 && redis.call("ZCARD", "dead") == 1 }
      sleep 0.2
    end
    assert_in_delta Time.now.to_f + 1000, zset("retry").first.last, 5
    assert_equal "kill", zset("dead").first.first["error_message"]
    assert_equal 0, redis.call("LLEN", "queue:default")
  end

  def test_retry_false_drops_the_job
    FailJob.set(retry: false).perform_async(1)
    with_server do |launcher|
      wait_for(message: "run") { Deckhand::TestJobs.runs.size == 1 }
      wait_for(message: "ack") { inflight(launcher).empty? }
    end
    assert_equal 0, redis.call("ZCARD", "retry") + redis.call("ZCARD", "dead")
  end

  def test_retry_for_limits_retries_by_time
    Deckhand::Client.push("class" => "FailJob", "args" => [1], "retry_for" => 60, "retry_count" => 3,
      "failed_at" => Deckhand::Payload.now - 120_000)
    with_server { wait_for(message: "dead") { redis.call("ZCARD", "dead") == 1 } }
  end

  def test_retry_for_wins_over_the_retry_count
    Deckhand.config = new_config(concurrency: 5, heartbeat_interval: 0.1, scheduler_interval: 0.05, timeout: 2, max_retries: 2)
    Deckhand::Client.push("class" => "FailJob", "args" => [1], "retry_for" => 3600, "retry_count" => 5,
      "failed_at" => Deckhand::Payload.now - 60_000)
    with_server { wait_for(message: "retry") { redis.call("ZCARD", "retry") == 1 } }
    assert_equal 0, redis.call("ZCARD", "dead")
    assert_equal 6, zset("retry").first.first["retry_count"]
  end

  def test_unknown_class_retries
    Deckhand::Client.push("class" => "NoSuchJobHere", "args" => [])
    with_server { wait_for(message: "retry") { redis.call("ZCARD", "retry") == 1 } }
    job = zset("retry").first.first
    assert_equal "Deckhand::UnknownJobClass", job["error_class"]
    assert_includes job["error_message"], "NoSuchJobHere"
    require "deckhand/web"
    row = Rack::MockRequest.new(Deckhand::Web.new(config: Deckhand.config)).get("/retries").body[%r{<td class="error-cell">.*?</td>}m]
    assert_includes row, "NoSuchJobHere is not a class this process knows: is it loaded (deckhand -r)?", "the retries list shows the fix"
    refute_match(/const_get|synchronize|\^\^/, row)
  end

  # Rails' autoload of ActiveJob::QueueAdapters::SidekiqAdapter without the
  # sidekiq gem raises Gem::LoadError: a failure of that job, not of its thread.
  def test_a_class_whose_autoload_fails_to_load_retries_and_the_thread_lives
    Object.autoload(:AutoloadsAMissingGemJob, File.join(Dir.tmpdir, "deckhand-no-such-file-#{Process.pid}.rb"))
    Deckhand::Client.push("class" => "AutoloadsAMissingGemJob", "args" => [])
    jid = RecordJob.perform_async("after")
    log = StringIO.new
    config = new_config(concurrency: 1)
    config.logger = ::Logger.new(log)
    with_server(config) do
      wait_for(message: "retry") { redis.call("ZCARD", "retry") == 1 }
      wait_for(message: "the next job") { Deckhand::TestJobs.runs.any? { |j, _| j == jid } }
    end
    job = zset("retry").first.first
    assert_equal "Deckhand::UnknownJobClass", job["error_class"]
    assert_includes job["error_message"], "looking AutoloadsAMissingGemJob up loaded a file that failed (LoadError"
    refute_match(/ThreadDied|worker thread/, log.string)
  ensure
    Object.send(:remove_const, :AutoloadsAMissingGemJob) if Object.autoload?(:AutoloadsAMissingGemJob)
  end

  def test_corrupt_payloads_go_dead_with_raw_bytes_and_work_continues
    bad = ["\xff\xfe{".b, '{"class":"RecordJob","args":[1', "[1,2]", '{"class":"RecordJob","args":"1","jid":"x"}',
      '{"json_class":"OpenStruct","class":"RecordJob","args":{},"jid":"y"}']
    redis.call("LPUSH", "queue:default", *bad)
    jid = RecordJob.perform_async("after")
    with_server do
      wait_for(message: "good job") { Deckhand::TestJobs.runs.any? { |j, _| j == jid } }
      wait_for(message: "dead entries") { redis.call("ZCARD", "dead") == bad.size }
    end
    dead = zset("dead").map(&:first)
    assert_equal bad.sort, dead.map { |d| d["raw"].unpack1("m0") }.sort
    assert dead.all? { |d| d["error_class"] == "Deckhand::CorruptPayload" && !d["error_message"].empty? }
  end

  def test_scheduled_jobs_run_when_due
    jid = RecordJob.perform_in(0.5, "later")
    pushed = monotonic
    with_server do
      wait_for(message: "scheduled job") { Deckhand::TestJobs.runs.any? { |j, _| j == jid } }
      assert_operator monotonic - pushed, :>=, 0.4
    end
    assert_equal 0, redis.call("ZCARD", "schedule")
  end

  def test_corrupt_schedule_entries_go_dead_untouched
    redis.call("ZADD", "schedule", Time.now.to_f - 1, "not json")
    redis.call("ZADD", "schedule", Time.now.to_f - 1, '{"class":"RecordJob","args":[],"jid":"a"}') # no queue
    with_server { wait_for(message: "dead") { redis.call("ZCARD", "dead") == 2 } }
    assert_includes redis.call("ZRANGE", "dead", 0, -1), "not json"
  end

  class SlowMiddleware
    def call(job, payload, queue)
      Deckhand::TestJobs.record([:middleware, job.class.name, payload["jid"], queue])
      yield
    end
  end

  def test_server_middleware_wraps_each_job
    Deckhand.config.server_middleware.add(SlowMiddleware)
    jid = RecordJob.perform_async(1)
    with_server { wait_for(message: "run") { Deckhand::TestJobs.runs.size == 2 } }
    assert_equal [:middleware, "RecordJob", jid, "default"], Deckhand::TestJobs.runs.first
  end

  def test_capsules_serve_their_own_queues
    thread_job = Class.new do
      include Deckhand::Job

      def perform = Deckhand::TestJobs.record([Thread.current.name, deckhand_payload["queue"]])
    end
    Object.const_set(:ThreadNameJob, thread_job) unless defined?(ThreadNameJob)
    Deckhand.config.capsule("cpu", concurrency: 1, queues: ["heavy"])
    ThreadNameJob.set(queue: "heavy").perform_bulk([[], [], []])
    ThreadNameJob.perform_bulk([[], []])
    with_server { wait_for(message: "5 runs") { Deckhand::TestJobs.runs.size == 5 } }
    names = Deckhand::TestJobs.runs.group_by(&:last).transform_values { |runs| runs.map(&:first).uniq }
    assert_equal ["deckhand-cpu-0"], names["heavy"]
    assert names["default"].all? { |n| n.start_with?("deckhand-default-") }
  end

  def test_heartbeat_publishes_process_record_and_flushes_stats
    RecordJob.perform_bulk(Array.new(20) { [1] })
    FailJob.perform_async(1)
    with_server do |launcher|
      wait_for(message: "stats") { redis.call("GET", "stat:processed").to_i == 21 }
      assert_equal "1", redis.call("GET", "stat:failed")
      today = Time.now.utc.strftime("%Y-%m-%d")
      assert_equal "21", redis.call("GET", "stat:processed:#{today}")
      assert_includes redis.call("SMEMBERS", "processes"), launcher.identity
      record = redis.call("HGETALL", launcher.identity)
      info = JSON.parse(record["info"])
      assert_equal 5, info["concurrency"]
      assert_equal ["default"], info["queues"]
      assert_equal Process.pid, info["pid"]
      assert_equal "false", record["quiet"]
      assert_operator record["rss"].to_i, :>, 0
      assert_operator redis.call("TTL", launcher.identity), :>, 0
      assert redis.call("HEXISTS", "deckhand:owners", launcher.identity) == 1
    end
  end

  def test_heartbeat_shows_running_jobs_and_remote_signals_arrive
    jid = SleepJob.perform_async(0.6)
    with_server do |launcher|
      wait_for(message: "work record") { redis.call("HLEN", "#{launcher.identity}:work") == 1 }
      work = JSON.parse(redis.call("HVALS", "#{launcher.identity}:work").first)
      assert_equal jid, JSON.parse(work["payload"])["jid"]
      assert_equal "default", work["queue"]
      redis.call("LPUSH", "#{launcher.identity}-signals", "TSTP")
      wait_for(message: "signal") { @signals_received&.include?("TSTP") }
    end
  end

  def test_quiet_stops_taking_work_and_hands_back_buffered_jobs
    with_server do |launcher|
      launcher.quiet
      sleep 0.2
      RecordJob.perform_async("after quiet")
      sleep 0.5
      assert_equal 1, redis.call("LLEN", "queue:default")
      assert_empty Deckhand::TestJobs.runs
    end
  end

  def test_stop_hands_unfinished_jobs_back_to_the_front_of_their_queue
    Deckhand.config = new_config(concurrency: 1, timeout: 0.5, heartbeat_interval: 0.1)
    jid = SleepJob.perform_async(30)
    RecordJob.perform_async("next")
    launcher = Deckhand::Server::Launcher.new(Deckhand.config.freeze!)
    launcher.start
    wait_for(message: "long job start") { Deckhand::TestJobs.runs.any? { |_, s| s == :start } }
    started = monotonic
    launcher.stop
    assert_operator monotonic - started, :<, 5
    assert_equal jid, JSON.parse(redis.call("LINDEX", "queue:default", -1))["jid"]
    assert_empty inflight_keys(launcher.identity)
    assert_equal 0, redis.call("HEXISTS", "deckhand:owners", launcher.identity)
    refute_includes redis.call("SMEMBERS", "processes"), launcher.identity
  end
end
