# frozen_string_literal: true

require "test_helper"
require "support/reliability_helpers"

# Jobs recovered from a crashed process are recorded in Redis while they run;
# those on their last chance run one at a time. Other jobs run as before.
class SuspectsTest < Minitest::Test
  include Deckhand::ReliabilityHelpers

  class TraceJob
    include Deckhand::Job

    def perform(label)
      running = Deckhand.config.store.call("SMEMBERS", "deckhand:suspects:#{TraceJob.identity}:default")
      Deckhand::TestJobs.record([:start, label, running])
      sleep 0.2
      Deckhand::TestJobs.record([:finish, label])
    end

    class << self
      attr_accessor :identity
    end
  end

  def setup
    super
    Deckhand.config = new_config(concurrency: 3, heartbeat_interval: 0.5, heartbeat_ttl: 2, timeout: 2, max_recoveries: 3)
  end

  def trace_payload(label, recovered: nil)
    redis.call("HSET", Keys.recoveries("default"), label, recovered, "~v", rand(1_000_000)) if recovered
    payload(label, klass: "SuspectsTest::TraceJob", args: [label])
  end

  def run_traced(*payloads)
    with_server do |launcher|
      TraceJob.identity = launcher.identity
      redis.call("LPUSH", "queue:default", *payloads)
      wait_for(message: "the jobs") { Deckhand::TestJobs.runs.count { |event, *| event == :finish } == payloads.size }
      wait_for(message: "the records cleared") { redis.call("EXISTS", Keys.suspects(launcher.identity, "default")).zero? }
    end
    Deckhand::TestJobs.runs
  end

  def starts(runs) = runs.select { |event, *| event == :start }

  def test_suspects_on_their_last_chance_run_one_at_a_time_each_recorded
    runs = run_traced(*%w[s1 s2 s3].map { |label| trace_payload(label, recovered: 2) })
    assert_equal %i[start finish start finish start finish], runs.map(&:first), "last-chance suspects overlapped"
    starts(runs).each { |_, label, running| assert_equal [label], running, "#{label} ran unrecorded or beside another" }
  end

  def test_a_suspect_that_succeeds_loses_its_count_one_that_fails_keeps_it
    run_traced(trace_payload("ok", recovered: 1))
    assert_nil recoveries("ok"), "a job that finished can no longer be a poison pill"
  end

  def test_other_suspects_run_side_by_side_each_recorded
    runs = run_traced(trace_payload("s1", recovered: 1), trace_payload("s2", recovered: 1))
    assert_equal %i[start start finish finish], runs.map(&:first)
    assert_equal 2, starts(runs).map { |_, _, running| running.size }.max
  end

  def test_jobs_never_recovered_run_side_by_side_unrecorded
    runs = run_traced(trace_payload("j1"), trace_payload("j2"))
    assert_equal %i[start start finish finish], runs.map(&:first)
    assert_equal [[], []], starts(runs).map(&:last)
  end
end
