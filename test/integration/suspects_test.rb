# frozen_string_literal: true

require "test_helper"
require "support/reliability_helpers"

# Jobs recovered from a crashed process run one at a time, each recorded in
# Redis while it runs; every other job runs as before.
class SuspectsTest < Minitest::Test
  include Deckhand::ReliabilityHelpers

  class TraceJob
    include Deckhand::Job

    def perform(label)
      Deckhand::TestJobs.record([:start, label, Deckhand.config.store.call("GET", "deckhand:suspect:#{TraceJob.identity}")])
      sleep 0.2
      Deckhand::TestJobs.record([:finish, label])
    end

    class << self
      attr_accessor :identity
    end
  end

  def setup
    super
    Deckhand.config = new_config(concurrency: 3, heartbeat_interval: 0.5, heartbeat_ttl: 2, timeout: 2)
  end

  def push_raw(*payloads) = redis.call("LPUSH", "queue:default", *payloads)

  def trace_payload(label, recovered: nil) = payload(label, klass: "SuspectsTest::TraceJob", args: [label], recovered: recovered)

  def test_suspects_run_one_at_a_time_each_recorded_while_it_runs
    with_server do |launcher|
      TraceJob.identity = launcher.identity
      push_raw(trace_payload("s1", recovered: 1), trace_payload("s2", recovered: 1), trace_payload("s3", recovered: 1))
      wait_for(message: "three suspects") { Deckhand::TestJobs.runs.count { |event, *| event == :finish } == 3 }
      wait_for(message: "the record cleared") { redis.call("EXISTS", Keys.suspect(launcher.identity)).zero? }
    end
    runs = Deckhand::TestJobs.runs
    assert_equal %i[start finish start finish start finish], runs.map(&:first), "suspects overlapped: #{runs.inspect}"
    runs.select { |event, *| event == :start }.each do |_, label, recorded|
      refute_nil recorded, "#{label} ran without its record"
      assert_match(/\A\d+:default\z/, recorded)
    end
  end

  def test_other_jobs_run_side_by_side_as_usual
    with_server do |launcher|
      TraceJob.identity = launcher.identity
      push_raw(trace_payload("j1"), trace_payload("j2"))
      wait_for(message: "both jobs") { Deckhand::TestJobs.runs.count { |event, *| event == :finish } == 2 }
    end
    runs = Deckhand::TestJobs.runs
    assert_equal %i[start start finish finish], runs.map(&:first)
    assert_equal [nil, nil], runs.first(2).map(&:last), "no record for a job never recovered"
  end
end
