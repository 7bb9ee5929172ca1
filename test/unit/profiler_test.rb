# frozen_string_literal: true

require "test_helper"
require "zlib"
require "deckhand/api"

# Job profiling (docs/profiling.md) on a real server and Redis: a job pushed
# with a profile token runs under this Ruby's profiler (Vernier from Ruby
# 3.2.1, stackprof before) and leaves its profile where Sidekiq 8 keeps it.
class ProfilingTest < Minitest::Test
  GZIP = "\x1f\x8b".b

  class BusyJob
    include Deckhand::Job

    def perform(n)
      deadline = ::Process.clock_gettime(::Process::CLOCK_MONOTONIC) + 0.05
      n += 1 while ::Process.clock_gettime(::Process::CLOCK_MONOTONIC) < deadline
      Deckhand::TestJobs.record([jid, n.positive?])
    end
  end

  class NightlyJob < BusyJob
    deckhand_options profile: "nightly", profiler_options: {mode: :wall}
  end

  class FailingJob
    include Deckhand::Job

    deckhand_options retry: 0

    def perform = raise(ArgumentError, "no profile for me")
  end

  def setup
    super
    # One thread: a process takes one profile at a time, so two profiled jobs
    # running together would leave one unprofiled (tested below).
    Deckhand.config = new_config(concurrency: 1, heartbeat_interval: 0.1, scheduler_interval: 0.05)
    Deckhand.config.logger = Logger.new($stderr) if ENV["DEBUG_PROF"]
  end

  def test_a_job_pushed_with_a_token_leaves_its_profile_and_a_plain_one_none
    skip_on_jruby("Vernier and stackprof, the profilers, are C extensions")
    profiled = BusyJob.set(profile: "mike").perform_async(1)
    plain = BusyJob.perform_async(2)
    nightly = NightlyJob.perform_async(3)
    with_server do
      wait_for(message: "the three jobs") { Deckhand::TestJobs.runs.size == 3 }
      wait_for(message: "the profiles") { redis.call("ZCARD", "profiles") == 2 }
    end
    keys = redis.call("ZRANGE", "profiles", 0, -1)
    assert_equal ["mike-#{profiled}", "nightly-#{nightly}"].sort, keys.sort
    refute_includes keys.join, plain
    record = redis.call("HGETALL", "mike-#{profiled}")
    assert_equal [profiled, "mike", BusyJob.name, Deckhand::Profiler.backend.to_s], record.values_at("jid", "token", "type", "format")
    assert_equal GZIP, record["data"].b[0, 2]
    assert_equal record["data"].bytesize, Integer(record["size"])
    assert_operator Float(record["elapsed"]), :>=, 0.05
    assert_in_delta Time.now.to_i, Integer(record["started_at"]), 5
    assert_in_delta 86_400, redis.call("TTL", "mike-#{profiled}"), 10
    assert_in_delta Time.now.to_f + 86_400, Float(redis.call("ZSCORE", "profiles", "mike-#{profiled}")), 10
    samples = JSON.parse(Zlib.gunzip(record["data"]))
    assert_kind_of Hash, samples, "the profile is the profiler's own JSON"
  end

  def test_the_api_lists_profiles_newest_first_and_drops_expired_ones
    skip_on_jruby("Vernier and stackprof, the profilers, are C extensions")
    first = BusyJob.set(profile: "a").perform_async(1)
    with_server { wait_for(message: "a profile") { redis.call("ZCARD", "profiles") == 1 } }
    redis.call("ZADD", "profiles", Time.now.to_f - 1, "old-gone")
    second = BusyJob.set(profile: "b").perform_async(2)
    with_server { wait_for(message: "another profile") { redis.call("ZCARD", "profiles") == 3 } }
    profiles = Deckhand::API.new.profiles
    assert_equal ["b-#{second}", "a-#{first}"], profiles.map(&:key)
    assert_equal 0, redis.call("ZSCORE", "profiles", "old-gone").to_i, "an expired entry leaves the set"
    assert_equal GZIP, profiles.first.data.b[0, 2]
    assert_equal BusyJob.name, profiles.first.type
    assert_equal((Deckhand::Profiler.backend == :vernier) ? :firefox : :speedscope, profiles.first.viewer)
  end

  def test_a_failed_job_keeps_no_profile
    FailingJob.set(profile: "mike").perform_async
    with_server { wait_for(message: "the failure") { redis.call("ZCARD", "dead") == 1 } }
    assert_equal 0, redis.call("ZCARD", "profiles")
  end

  def test_a_token_is_checked_where_it_is_set
    error = assert_raises(ArgumentError) { BusyJob.set(profile: "mike smith").perform_async(1) }
    assert_match(/profile: "mike smith" is not valid; give a token naming the profile/, error.message)
    assert_raises(ArgumentError) { Class.new(BusyJob) { deckhand_options profile: 42 } }
    assert_equal 0, redis.call("LLEN", "queue:default")
  end

  def test_a_job_asking_while_another_is_profiled_runs_unprofiled
    skip_on_jruby("Vernier and stackprof, the profilers, are C extensions")
    log = StringIO.new
    config = new_config
    config.logger = Logger.new(log)
    profiler = Deckhand::Profiler.new(config)
    inside = Queue.new
    release = Queue.new
    first = Thread.new do
      profiler.call({"profile" => "a", "jid" => "j1", "class" => "X"}) do
        inside << true
        release.pop
      end
    end
    inside.pop
    assert_equal :ran, profiler.call({"profile" => "b", "jid" => "j2", "class" => "X"}) { :ran }
    release << true
    first.join
    assert_equal ["a-j1"], redis.call("ZRANGE", "profiles", 0, -1)
    assert_includes log.string, "X j2 ran unprofiled: another job's profile was being taken"
  end

  def test_without_the_profilers_gem_the_job_runs_and_the_log_says_what_to_add
    log = StringIO.new
    config = new_config
    config.logger = Logger.new(log)
    profiler = Deckhand::Profiler.new(config, backend: :"deckhand-no-such-profiler")
    assert_equal :ran, profiler.call({"profile" => "mike", "jid" => "j1", "class" => "X"}) { :ran }
    assert_equal :ran, profiler.call({"profile" => "mike", "jid" => "j2", "class" => "X"}) { :ran }
    assert_equal 1, log.string.scan('add gem "deckhand-no-such-profiler" to the Gemfile').size
    assert_equal 0, redis.call("ZCARD", "profiles")
  end

  # JRuby's backend: none, and the log says why, once.
  def test_where_no_profiler_can_run_the_job_runs_and_the_log_says_why
    log = StringIO.new
    config = new_config
    config.logger = Logger.new(log)
    profiler = Deckhand::Profiler.new(config, backend: :none)
    2.times { |i| assert_equal :ran, profiler.call({"profile" => "mike", "jid" => "j#{i}", "class" => "X"}) { :ran } }
    assert_equal 1, log.string.scan("JRuby has no profiler Deckhand can use").size
    assert_equal 0, redis.call("ZCARD", "profiles")
  end
end
