# frozen_string_literal: true

# Runs in a drop-in child (test/dropin/priority_queue_test.rb starts it):
# Sidekiq::Queue enumerates the jobs waiting at a queue's priority levels
# (docs/priority.md) with its own, newest first as Sidekiq's does (the run
# order reversed), and deletes one from its level's list.
require "minitest/autorun"
require "json"
require "logger"
require "sidekiq"
require "sidekiq/api"

class DropInPriorityJob
  include Sidekiq::Job

  def perform(_n) = nil
end

class PriorityQueueInsideTest < Minitest::Test
  def setup
    Deckhand.config = Deckhand::Config.new(redis: {url: ENV.fetch("REDIS_URL")})
    Deckhand.config.logger = Logger.new(File::NULL)
    Sidekiq.redis { |conn| conn.call("FLUSHDB") }
  end

  def test_the_jobs_at_levels_are_enumerated_and_deleted
    own = DropInPriorityJob.perform_async(1)
    urgent = DropInPriorityJob.set(priority: -5).perform_async(2)
    late = DropInPriorityJob.set(priority: 5).perform_async(3)
    queue = Sidekiq::Queue.new("default")
    assert_equal 3, queue.size
    assert_equal [late, own, urgent], queue.map(&:jid)
    assert queue.find_job(urgent).delete, "found at its level and deleted"
    assert_equal 0, Sidekiq.redis { |conn| conn.call("LLEN", "queue:default~r-5") }
    assert_equal [late, own], Sidekiq::Queue.new("default").map(&:jid)
  end
end
