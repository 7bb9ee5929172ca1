# frozen_string_literal: true

require "test_helper"
require_relative "compat_helper"

# Jobs pushed by the real Sidekiq client run on a Deckhand server, unchanged.
class SidekiqToDeckhandTest < Minitest::Test
  include Deckhand::CompatTest

  ARGS = ["text", 42, -7, 3.25, {"nested" => {"list" => [1, "two", nil], "ok" => true}}, nil, "ünïcödé ✓ 日本", [], {}].freeze

  def test_pushed_jobs_run_once_each_with_the_same_args
    expected = {
      Sidekiq::Client.push("class" => "SidekiqWrittenJob", "args" => ARGS, "queue" => QUEUE) => ARGS,
      SidekiqWrittenJob.perform_async("one", 1) => ["one", 1]
    }
    bulk = [[1], [2.5], ["three"], [{"four" => [4]}], [nil]]
    Sidekiq::Client.push_bulk("class" => SidekiqWrittenJob, "args" => bulk).zip(bulk) { |jid, args| expected[jid] = args }
    assert_equal expected.size, redis.call("LLEN", "queue:#{QUEUE}")
    assert_kind_of Deckhand::SidekiqHarness.sidekiq_7? ? Float : Integer, jobs_in(QUEUE).first["enqueued_at"],
      "written by Sidekiq #{Sidekiq::VERSION}, in its encoding"

    with_server(fast_config) do
      wait_for(message: "#{expected.size} jobs") { Deckhand::TestJobs.runs.size >= expected.size }
    end
    assert_runs_once(expected)
  end

  def test_scheduled_jobs_run_when_due
    expected = {
      SidekiqWrittenJob.perform_in(1, "in", 1) => ["in", 1],
      SidekiqWrittenJob.perform_at(Time.now + 1, "at", 2.0) => ["at", 2.0],
      Sidekiq::Client.push("class" => "SidekiqWrittenJob", "args" => ["raw"], "queue" => QUEUE, "at" => Time.now.to_f + 1) => ["raw"]
    }
    bulk = [["bulk", 1], ["bulk", 2]]
    Sidekiq::Client.push_bulk("class" => SidekiqWrittenJob, "args" => bulk, "at" => Time.now.to_f + 1).zip(bulk) { |jid, args| expected[jid] = args }
    assert_equal expected.size, redis.call("ZCARD", "schedule")

    with_server(fast_config) do
      # Deckhand's scheduler moves them to their queue once due, then they run.
      wait_for(message: "#{expected.size} scheduled jobs") { Deckhand::TestJobs.runs.size >= expected.size }
      assert_equal 0, redis.call("ZCARD", "schedule")
    end
    assert_runs_once(expected)
  end

  private

  # Checked after the server stopped, so a second run would have shown.
  def assert_runs_once(expected)
    runs = Deckhand::TestJobs.runs
    assert_equal expected.size, runs.size, "each job runs once"
    assert_equal expected, runs.to_h
    assert_equal 0, redis.call("LLEN", "queue:#{QUEUE}")
    assert_equal [0, 0], [redis.call("ZCARD", "retry"), redis.call("ZCARD", "dead")]
  end
end
