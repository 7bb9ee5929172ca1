# frozen_string_literal: true

require "test_helper"
require_relative "compat_helper"

# Sidekiq's Stats, History and Queue read Deckhand's counters and queues.
class SidekiqApiStatsTest < Minitest::Test
  include Deckhand::CompatTest

  def test_stats_count_deckhand_work_after_its_heartbeat
    CompatFlakyJob.perform_bulk([["a", 0], ["b", 0], ["c", 0]])
    CompatFlakyJob.set(retry: false).perform_async("d", 1)
    with_server(fast_config) do
      # Deckhand counts in memory and flushes on its heartbeat (every 0.1 s here).
      wait_for(message: "Sidekiq::Stats to count 4") { Sidekiq::Stats.new.processed == 4 }
    end

    stats = Sidekiq::Stats.new
    assert_equal 4, stats.processed, "failures count as processed, as in Sidekiq"
    assert_equal 1, stats.failed
    # Daily counters; two days so a run across midnight (UTC) still adds up.
    history = Sidekiq::Stats::History.new(2)
    assert_equal 4, history.processed.values.sum
    assert_equal 1, history.failed.values.sum
  end

  def test_queues_read_deckhand_queues
    Deckhand.config = new_config(timestamps: :float) # Sidekiq 7 reads latency from Float seconds only
    jids = CompatFlakyJob.perform_bulk([["a", 0], ["b", 0], ["c", 0]])
    RecordJob.perform_async("elsewhere")

    queue = Sidekiq::Queue.new(QUEUE)
    assert_equal 3, queue.size
    assert_includes 0.0..60.0, queue.latency
    assert_equal jids.reverse, queue.map(&:jid), "newest on the left, as Sidekiq pushes"
    assert_equal [QUEUE, "default"], Sidekiq::Queue.all.map(&:name)
    stats = Sidekiq::Stats.new
    assert_equal 4, stats.enqueued
    assert_equal({QUEUE => 3, "default" => 1}, stats.queues)
    assert_includes 0.0..60.0, stats.default_queue_latency

    # Deleting through Sidekiq's API removes exactly that job.
    assert queue.find_job(jids[1]).delete
    assert_equal 2, queue.size
    with_server(fast_config) do
      wait_for(message: "the two jobs left") { Deckhand::TestJobs.runs.size >= 2 }
    end
    assert_equal [jids[0], jids[2]].sort, Deckhand::TestJobs.runs.map(&:first).sort
  end
end
