# frozen_string_literal: true

# Runs in a drop-in child (test/dropin/sidekiq_public_api_test.rb starts it):
# Sidekiq's data API as Sidekiq 7.3 has it, on Deckhand's data.
require "minitest/autorun"
require "minitest/mock"
require "json"
require "socket"
require "sidekiq"
require "sidekiq/api"

class ApiRecordJob
  include Sidekiq::Job

  sidekiq_options tags: ["billing"]

  def perform(*) = nil
end

class ApiRecordsInsideTest < Minitest::Test
  def setup
    Sidekiq.redis { |conn| conn.call("FLUSHDB") }
    Deckhand.config.death_handlers.clear
  end

  def add(set, jid, score, extra = {})
    job = {"class" => "ApiRecordJob", "args" => [jid], "queue" => "default", "jid" => jid}.merge(extra)
    Sidekiq.redis { |conn| conn.zadd(set, score.to_s, JSON.generate(job)) }
    job
  end

  def test_job_record_from_a_hash_or_json_with_tags_and_active_job_unwrapped
    record = Sidekiq::JobRecord.new({"class" => "X", "args" => [1], "tags" => ["a"]}, "low")
    assert_equal ["low", ["a"], [1]], [record.queue, record.tags, record.args]
    assert_equal [], Sidekiq::JobRecord.new(JSON.generate("class" => "X", "args" => [])).tags
    mail = {"class" => "Sidekiq::ActiveJob::Wrapper", "wrapped" => "ActionMailer::MailDeliveryJob", "queue" => "mailers",
            "args" => [{"job_class" => "ActionMailer::MailDeliveryJob",
                        "arguments" => ["UserMailer", "welcome", "deliver_now",
                          {"params" => {"user" => {"_aj_globalid" => "gid://app/User/1"}, "_aj_symbol_keys" => ["user"]},
                           "args" => [7], "_aj_symbol_keys" => ["params", "args"]}]}]}
    record = Sidekiq::JobRecord.new(JSON.generate(mail), "mailers")
    assert_equal "UserMailer#welcome", record.display_class
    assert_equal [{"user" => "gid://app/User/1"}, [7]], record.display_args
    jid = ApiRecordJob.perform_async
    assert_equal ["billing"], Sidekiq::Queue.new.find_job(jid).tags
  end

  def test_sets_read_highest_score_first_and_fetch_delete_reschedule_by_score
    now = Time.now.to_f.round(3)
    add("retry", "early", now)
    add("retry", "same1", now + 10)
    add("retry", "same2", now + 10)
    add("retry", "late", now + 20)
    retries = Sidekiq::RetrySet.new
    assert_equal %w[schedule retry dead], [Sidekiq::ScheduledSet, Sidekiq::RetrySet, Sidekiq::DeadSet].map { |set| set.new.name }
    assert_equal %w[late same2 same1 early], retries.map(&:jid)
    assert_equal %w[same1 same2], retries.fetch(now + 10).map(&:jid)
    assert_equal %w[same2], retries.fetch(now + 10, "same2").map(&:jid)
    assert_equal %w[early same1 same2], retries.fetch(now..(now + 10)).map(&:jid)
    assert_raises(ArgumentError) { retries.delete(now) }
    assert retries.delete(now + 10, "same1")
    refute retries.delete(now + 10, "same1")
    assert retries.fetch(now, "early").first.reschedule(now + 30)
    assert_equal %w[early late same2], retries.map(&:jid)
    assert retries.schedule(now + 40, {"class" => "X", "args" => [], "jid" => "hash"})
    assert_equal %w[hash early], retries.first(2).map(&:jid)
    assert_instance_of Enumerator, retries.scan("late")
    assert_equal %w[same2], retries.scan("*same*").map(&:jid)
  end

  # A plugin's own sorted set (sidekiq-failures keeps "failed"), by its name.
  def test_a_job_set_of_any_name_reads_deletes_retries_and_kills_its_entries
    now = Time.now.to_f.round(3)
    %w[a b c d].each_with_index { |jid, i| add("failed", jid, now + i, "error_message" => "boom") }
    failed = Sidekiq::JobSet.new("failed")
    assert_equal ["failed", 4], [failed.name, failed.size]
    assert_equal %w[d c b a], failed.map(&:jid)
    assert_equal "boom", failed.find_job("b").item["error_message"]
    assert_equal %w[c], failed.fetch(now + 2).map(&:jid)
    assert failed.delete(now + 3, "d")
    assert failed.find_job("c").retry
    queued = Sidekiq::Queue.new("default").map(&:jid)
    assert_equal %w[c], queued
    assert failed.find_job("b").kill
    assert_equal %w[b], Sidekiq::DeadSet.new.map(&:jid)
    assert_equal %w[a], failed.map(&:jid)
    assert failed.schedule(now + 9, {"class" => "ApiRecordJob", "args" => [], "jid" => "e", "queue" => "default"})
    assert_equal 2, failed.retry_all
    assert_equal %w[a c e], Sidekiq::Queue.new("default").map(&:jid).sort
    add("failed", "f", now)
    failed.clear
    assert_equal 0, failed.size
    assert_equal "retry", Sidekiq::JobSet.new("retry").name, "Sidekiq's own names are Deckhand's sets"
    add("failed", "s", now)
    assert_equal ["failed", %w[s]], [Sidekiq::JobSet.new(:failed).name, Sidekiq::JobSet.new(:failed).map(&:jid)], "a Symbol names the key too"
    add("retry", "r", now)
    assert_equal %w[r], Sidekiq::JobSet.new("retry").map(&:jid)
  end

  def test_dead_set_kill_buries_a_payload_trims_and_tells_the_death_handlers
    told = []
    Sidekiq.default_configuration.death_handlers << ->(job, error) { told << [job["jid"], error.message] }
    dead = Sidekiq::DeadSet.new
    assert dead.kill(JSON.generate("class" => "X", "args" => [], "jid" => "d1"))
    dead.kill(JSON.generate("class" => "X", "args" => [], "jid" => "d2"), notify_failure: false)
    dead.kill(JSON.generate("class" => "X", "args" => [], "jid" => "d3"), ex: StandardError.new("custom"))
    assert_equal [["d1", "Job killed by API"], ["d3", "custom"]], told
    assert_equal %w[d1 d2 d3].sort, dead.map(&:jid).sort
    Deckhand.config.dead_max_jobs = 2
    dead.kill(JSON.generate("class" => "X", "args" => [], "jid" => "d4"))
    assert_equal 2, dead.size
    assert dead.find_job("d4")
  ensure
    Deckhand.config.dead_max_jobs = 10_000
  end

  def test_dead_set_kill_dates_and_trims_by_the_callers_clock
    Deckhand.config.dead_timeout = 10
    dead = Sidekiq::DeadSet.new
    an_hour_ago = Time.now - 3600
    Time.stub(:now, an_hour_ago) { dead.kill(JSON.generate("class" => "X", "args" => [], "jid" => "old"), notify_failure: false) }
    assert_in_delta an_hour_ago.to_f, dead.find_job("old").score, 1
    dead.kill(JSON.generate("class" => "X", "args" => [], "jid" => "new"), notify_failure: false)
    assert_equal %w[new], dead.map(&:jid), "older than dead_timeout by the caller's clock: trimmed"
  ensure
    Deckhand.config.dead_timeout = 180 * 24 * 60 * 60
  end

  def test_process_set_lookup_fields_and_embedded_processes
    info = {"hostname" => Socket.gethostname, "pid" => 123, "identity" => "box:1", "queues" => ["a"],
            "weights" => {"a" => 1}, "version" => "7.3.10", "embedded" => true}
    beat = Time.now.to_f.round(3)
    Sidekiq.redis do |conn|
      conn.sadd("processes", "box:1")
      conn.hset("box:1", "info", JSON.generate(info), "busy", 3, "beat", beat)
    end
    assert_nil Sidekiq::ProcessSet["nope"]
    process = Sidekiq::ProcessSet["box:1"]
    assert_equal [3, beat, 123, ["a"], {"a" => 1}, true], [process["busy"], process["beat"], process["pid"], process.queues, process.weights, process.embedded?]
    assert_equal "Can't quiet an embedded process", assert_raises(RuntimeError) { process.quiet! }.message
    assert_equal "Can't stop an embedded process", assert_raises(RuntimeError) { Sidekiq::Process.new("embedded" => true).stop! }.message
    Sidekiq::Process.new("identity" => "box:2").stop!
    assert_equal "TERM", Sidekiq.redis { |conn| conn.lpop("box:2-signals") }
  end

  def test_work_set_lists_running_jobs_oldest_first_and_finds_one_by_jid
    assert_equal 0, Sidekiq::Workers.new.to_a.size
    Sidekiq.redis do |conn|
      conn.sadd("processes", "box:1")
      conn.hset("box:1:work", "t1", JSON.generate("queue" => "default", "run_at" => Time.now.to_i, "payload" => {"jid" => "j1", "args" => [1]}))
      conn.hset("box:1:work", "t2", JSON.generate("queue" => "low", "run_at" => Time.now.to_i - 60, "payload" => JSON.generate("jid" => "j2", "args" => [2])))
    end
    works = Sidekiq::WorkSet.new.to_a
    assert_equal [%w[box:1 t2], %w[box:1 t1]], works.map { |process, thread, _| [process, thread] }
    work = Sidekiq::WorkSet.new.find_work_by_jid("j1")
    assert_equal [[1], "default", "t1", "box:1"], [work.job.args, work.queue, work.thread_id, work.process_id]
    assert_nil Sidekiq::WorkSet.new.find_work("none")
  end

  def test_stats_reset_and_history_bounds
    Sidekiq.redis do |conn|
      conn.set("stat:processed", 5)
      conn.set("stat:failed", 4)
      conn.set("stat:processed:2012-12-25", 7)
    end
    Sidekiq::Stats.new.reset(:failed, "bogus")
    assert_equal [5, 0], [Sidekiq::Stats.new.processed, Sidekiq::Stats.new.failed]
    Sidekiq::Stats.new.reset
    assert_equal 0, Sidekiq::Stats.new.processed
    assert_raises(ArgumentError) { Sidekiq::Stats::History.new(0) }
    assert_equal({"2012-12-25" => 7, "2012-12-24" => 0}, Sidekiq::Stats::History.new(2, Date.new(2012, 12, 25)).processed)
  end

  def test_config_redis_yields_a_connection_and_needs_a_block
    config = Sidekiq.default_configuration
    assert_equal "OK", config.redis { |conn| conn.set("k", "v") }
    assert_equal "v", Sidekiq.redis { |conn| conn.get("k") }
    assert_raises(ArgumentError) { config.redis }
    assert_raises(ArgumentError) { Sidekiq.redis }
  end
end
