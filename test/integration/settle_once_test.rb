# frozen_string_literal: true

require "test_helper"
require "tmpdir"

# A failed job's outcome is written once, whatever goes wrong around it:
# Redis refusing the write halfway through the settle (the job waits in
# flight until the key is fixed, then lands once), handlers that raise
# exceptions `rescue => e` misses, a class lookup that raises LoadError.
# Handlers run once per outcome, and nothing stays in flight.
class SettleOnceTest < Minitest::Test
  class NoRetryJob
    include Deckhand::Job

    deckhand_options retry: 0

    def perform(*) = raise(ArgumentError, "failed on purpose")
  end

  class RetryThreeJob
    include Deckhand::Job

    deckhand_options retry: 3

    def perform(*) = raise(ArgumentError, "failed on purpose")
  end

  # Holds its thread until released, so jobs pile up and one fetch takes them together.
  class GateJob
    include Deckhand::Job

    GATE = Queue.new

    def perform = GATE.pop
  end

  def setup
    super
    @log = StringIO.new
    Deckhand.config = new_config(concurrency: 2, heartbeat_interval: 0.2, timeout: 2)
    Deckhand.config.logger = Logger.new(@log)
    GateJob::GATE.clear
  end

  def in_set(name) = zset(name).map(&:first)

  def refusal_logged = @log.string.include?("refused Deckhand's settle script: WRONGTYPE")

  # An idle server hands a pushed job straight to a thread (its landing
  # list), a busy one takes it in a lot: both ways, a settle that Redis
  # refuses at the outcome's set loses nothing.
  def assert_outcome_waits_for(set, klass)
    with_server do |launcher|
      redis.call("SET", set, "not a sorted set")
      landed = klass.perform_async("idle")
      wait_for(message: "the refusal in the log") { refusal_logged }
      assert_equal 1, inflight_count(launcher.identity), "the job waits in flight"
      redis.call("DEL", set)
      wait_for(message: "the job in #{set}") { in_set(set).map { |job| job["jid"] } == [landed] }
      wait_for(message: "nothing left in flight") { inflight_count(launcher.identity).zero? && inflight_keys(launcher.identity).empty? }

      @log.truncate(0)
      redis.call("SET", set, "not a sorted set") # in place of the set that holds the first job
      GateJob.perform_async
      GateJob.perform_async
      wait_for(message: "both threads busy") { GateJob::GATE.num_waiting == 2 }
      in_lot = klass.perform_async("busy")
      2.times { GateJob::GATE << :go }
      wait_for(message: "the refusal in the log") { refusal_logged }
      redis.call("DEL", set)
      wait_for(message: "the second job in #{set}") { in_set(set).map { |job| job["jid"] } == [in_lot] }
      wait_for(message: "nothing left in flight") { inflight_count(launcher.identity).zero? && inflight_keys(launcher.identity).empty? }
    end
    refute_includes @log.string, "recovered by another process"
  end

  def test_a_retry_set_of_the_wrong_type_mid_run_keeps_the_job_until_it_is_fixed
    assert_outcome_waits_for("retry", RetryThreeJob)
  end

  def test_a_dead_set_of_the_wrong_type_mid_run_keeps_the_job_until_it_is_fixed
    assert_outcome_waits_for("dead", NoRetryJob)
  end

  def test_a_death_handler_raising_a_script_error_records_each_death_once
    calls = Queue.new
    Deckhand.config.on_death do |job, _error|
      calls << job["jid"]
      raise NotImplementedError, "handler bug"
    end
    with_server do |launcher|
      2.times { GateJob.perform_async }
      wait_for(message: "both threads busy") { GateJob::GATE.num_waiting == 2 }
      jids = Array.new(4) { NoRetryJob.perform_async }
      2.times { GateJob::GATE << :go }
      wait_for(message: "four deaths") { in_set("dead").size >= 4 }
      wait_for(message: "nothing left in flight") { inflight_keys(launcher.identity).empty? }
      assert_equal jids.sort, in_set("dead").map { |job| job["jid"] }.sort, "each job recorded once"
      assert_equal jids.sort, Array.new(calls.size) { calls.pop }.sort, "the handler ran once a death"
      2.times { GateJob.perform_async }
      wait_for(message: "both threads still there") { GateJob::GATE.num_waiting == 2 }
      2.times { GateJob::GATE << :go }
    end
    assert_match(/death handler raised NotImplementedError: handler bug/, @log.string)
    refute_match(/crashed/, @log.string)
  end

  def test_an_error_handler_raising_a_script_error_leaves_the_job_and_thread_alone
    calls = Queue.new
    Deckhand.config.on_error do |_error, context|
      calls << context["job"]["jid"]
      raise NotImplementedError, "handler bug"
    end
    with_server do |launcher|
      jid = RetryThreeJob.perform_async
      wait_for(message: "the job in the retry set") { in_set("retry").size == 1 }
      wait_for(message: "nothing left in flight") { inflight_keys(launcher.identity).empty? }
      assert_equal jid, in_set("retry").first["jid"]
      assert_equal 0, in_set("retry").first["retry_count"], "one failure recorded"
      # The handlers run once the outcome is written: maybe just after.
      wait_for(message: "the error handler called") { calls.size == 1 }
      assert_equal [jid], Array.new(calls.size) { calls.pop }
    end
    assert_match(/error handler raised NotImplementedError: handler bug/, @log.string)
    refute_match(/crashed/, @log.string)
  end

  # Rails' autoloader raises Gem::LoadError (a ScriptError) when a constant's
  # file requires a gem that is not in the bundle.
  def test_a_class_lookup_raising_load_error_records_the_failure
    Dir.mktmpdir do |dir|
      path = File.join(dir, "stranded_by_load_error_job.rb")
      File.write(path, %(raise LoadError, "sidekiq is not part of the bundle"\n))
      Object.autoload(:StrandedByLoadErrorJob, path)
      with_server do |launcher|
        jid = Deckhand::Client.push("class" => "StrandedByLoadErrorJob", "args" => [], "retry" => 0)
        job = wait_for(message: "the job in the dead set") { in_set("dead").first }
        assert_equal jid, job["jid"]
        assert_match(/sidekiq is not part of the bundle/, job["error_message"])
        wait_for(message: "nothing left in flight") { inflight_keys(launcher.identity).empty? }
      end
    ensure
      Object.send(:remove_const, :StrandedByLoadErrorJob) if Object.const_defined?(:StrandedByLoadErrorJob, false)
    end
    refute_match(/crashed/, @log.string)
  end
end
