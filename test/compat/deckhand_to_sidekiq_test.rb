# frozen_string_literal: true

require "test_helper"
require_relative "compat_helper"

# Jobs pushed by Deckhand run on a real Sidekiq server, 7.3 or 8.1 as the
# bundle has it (embedded, in a child process), in both timestamp encodings
# Deckhand can write.
class DeckhandToSidekiqTest < Minitest::Test
  include Deckhand::CompatTest

  ARGS = ["text", 42, 3.25, {"nested" => {"list" => [1, "two", nil], "ok" => true}}, nil, "ünïcödé ✓ 日本"].freeze
  BULK = [[1, "a"], [2, "b"], [3, {"c" => nil}]].freeze
  LATER = ["later", 1.5].freeze

  # The default, Sidekiq 8's encoding: Integer epoch milliseconds.
  def test_millisecond_jobs_run_on_the_sidekiq_gem
    expected = push_everything
    assert_timestamps Integer

    # Sidekiq 7.3 runs these jobs, but its API reads every timestamp as epoch
    # seconds: an Integer in milliseconds becomes a Time tens of thousands of
    # years ahead, and a queue's age a huge negative number. That is why a fleet
    # that still runs Sidekiq 7 sets `config.timestamps = :float`. Sidekiq 8
    # writes them itself and reads them right.
    record = Sidekiq::Queue.new("default").find_job(expected.keys.first)
    if SIDEKIQ_7
      assert_operator record.enqueued_at.year, :>, 10_000
      assert_operator record.created_at.year, :>, 10_000
      assert_operator record.latency, :<, -1_000_000_000
      assert_operator Sidekiq::Queue.new("default").latency, :<, -1_000_000_000
    else
      assert_in_delta Time.now.to_f, record.enqueued_at.to_f, 60
      assert_in_delta Time.now.to_f, record.created_at.to_f, 60
      assert_includes 0.0..60.0, Sidekiq::Queue.new("default").latency
    end

    run_on_sidekiq(expected)
  end

  # `timestamps: :float`, Sidekiq 7's encoding: Float epoch seconds, read right.
  def test_float_jobs_run_on_sidekiq_7_and_its_api_reads_their_times
    Deckhand.config = new_config(timestamps: :float)
    expected = push_everything
    assert_timestamps Float

    record = Sidekiq::Queue.new("default").find_job(expected.keys.first)
    assert_in_delta Time.now.to_f, record.enqueued_at.to_f, 60
    assert_in_delta Time.now.to_f, record.created_at.to_f, 60
    assert_includes 0.0..60.0, Sidekiq::Queue.new("default").latency

    run_on_sidekiq(expected)
  end

  private

  # perform_async, perform_bulk and a perform_in due in a second; returns jid => args.
  def push_everything
    expected = {MigratingJob.perform_async(*ARGS) => ARGS}
    MigratingJob.perform_bulk(BULK).zip(BULK) { |jid, args| expected[jid] = args }
    expected[MigratingJob.perform_in(1, *LATER)] = LATER
    assert_equal 4, redis.call("LLEN", "queue:default")
    assert_equal 1, redis.call("ZCARD", "schedule")
    expected
  end

  # Proves Deckhand wrote these jobs in the encoding asked for.
  def assert_timestamps(type)
    jobs_in("default").each do |job|
      assert_kind_of type, job["created_at"]
      assert_kind_of type, job["enqueued_at"]
    end
    assert_kind_of type, zset("schedule").first.first["created_at"]
  end

  def run_on_sidekiq(expected)
    child = Deckhand::SidekiqHarness.server(queues: ["default"]) do |pid|
      # Sidekiq's own scheduler moves the scheduled job, after a random first wait of up to 5 s.
      wait_for(timeout: 10, message: "Sidekiq to run #{expected.size} jobs") { Deckhand::SidekiqHarness.runs.size >= expected.size }
      pid
    end
    runs = Deckhand::SidekiqHarness.runs
    assert_equal expected.size, runs.size, "each job runs once"
    assert_equal expected, runs.to_h { |jid, args, _| [jid, args] }
    assert_equal [child], runs.map(&:last).uniq, "run in the Sidekiq process"
    assert_equal [0, 0, 0, 0], [redis.call("LLEN", "queue:default"), redis.call("ZCARD", "schedule"),
      redis.call("ZCARD", "retry"), redis.call("ZCARD", "dead")]
  end
end
