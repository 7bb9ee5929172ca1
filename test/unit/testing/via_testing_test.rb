# frozen_string_literal: true

require_relative "../../support/testing/testing_helper"
require_relative "../../support/second_redis"

# Jobs pushed to another Redis (Client.via, pool:) are the application's jobs
# all the same: the fake collects them, inline runs them, as Sidekiq's testing does.
class ViaTestingTest < Minitest::Test
  include Deckhand::TestingHelpers

  class ShardedJob
    include Deckhand::Job

    deckhand_options pool: Deckhand::SecondRedis.url

    def perform(n) = Deckhand::TestJobs.record([jid, n])
  end

  def setup
    super
    Deckhand::SecondRedis.client.call("FLUSHALL")
  end

  def test_fake_mode_collects_jobs_pushed_to_another_redis
    Deckhand::Testing.fake!
    via = Deckhand::Client.via(Deckhand::SecondRedis.store) { WelcomeEmailJob.perform_async(1) }
    pooled = ShardedJob.perform_in(60, 2)
    assert_equal [via], WelcomeEmailJob.jobs.map { |job| job["jid"] }
    assert_equal [pooled], ShardedJob.jobs.map { |job| job["jid"] }
    refute ShardedJob.jobs.first.key?("pool")
    assert_equal 0, redis.call("DBSIZE")
    assert_equal 0, Deckhand::SecondRedis.client.call("DBSIZE")
  end

  def test_inline_mode_runs_them
    Deckhand::Testing.inline!
    jid = ShardedJob.perform_async(3)
    assert_equal [[jid, 3]], Deckhand::TestJobs.runs
    assert_equal 0, Deckhand::SecondRedis.client.call("DBSIZE")
  end

  def test_disabled_they_reach_the_other_redis
    jid = ShardedJob.perform_async(4)
    assert_equal jid, JSON.parse(Deckhand::SecondRedis.client.call("LINDEX", "queue:default", 0))["jid"]
  end
end
