# frozen_string_literal: true

# Runs in a drop-in child (test/dropin/partitioned_queue_test.rb starts it):
# Sidekiq::Queue shows a partitioned queue (docs/cluster.md) whole, as
# Deckhand's API does: size, latency and jobs of every partition.
require "minitest/autorun"
require "json"
require "logger"
require "sidekiq"
require "sidekiq/api"

class DropInPartitionedJob
  include Sidekiq::Job

  def perform(_n) = nil
end

class PartitionedQueueInsideTest < Minitest::Test
  def setup
    Deckhand.config = Deckhand::Config.new(redis: {url: ENV.fetch("REDIS_URL")}, partitions: {"default" => 3})
    Deckhand.config.logger = Logger.new(File::NULL)
    Sidekiq.redis { |conn| conn.call("FLUSHDB") }
  end

  def test_a_partitioned_queue_shows_every_partition_s_jobs
    jids = Array.new(6) { |i| DropInPartitionedJob.perform_async(i) }
    lengths = %w[default default~p1 default~p2].map { |list| Sidekiq.redis { |conn| conn.call("LLEN", "queue:#{list}") } }
    assert_equal [2, 2, 2], lengths, "the pushes went round the partitions"
    queue = Sidekiq::Queue.new("default")
    assert_equal 6, queue.size
    assert_equal jids.sort, queue.map(&:jid).sort
    assert_equal 6, queue.count
    assert_operator queue.latency, :>, 0
    assert_equal ["default"], Sidekiq::Queue.all.map(&:name)
    assert_equal 6, Sidekiq::Queue.all.first.size
    assert queue.find_job(jids.last).delete, "a job of the last partition is found and deleted"
    assert_equal 5, Sidekiq::Queue.new("default").size
    Sidekiq::Queue.new("default").clear
    assert_equal 0, Sidekiq::Queue.new("default").size
  end
end
