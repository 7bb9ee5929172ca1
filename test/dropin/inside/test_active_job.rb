# frozen_string_literal: true

# Runs in a drop-in child without the sidekiq gem (test/dropin/active_job_test.rb):
# Active Job loads first and deckhand/sidekiq after, as Bundler.require does
# in a Rails app.
require "minitest/autorun"
require "active_job"
require "deckhand/sidekiq"
require "deckhand/embedded"

class HelloJob < ActiveJob::Base
  def perform(name) = Sidekiq.redis { |conn| conn.rpush("aj:done", name) }
end

# Sidekiq's declarations on an Active Job class, as the sidekiq gem allows.
class FragileJob < ActiveJob::Base
  sidekiq_options retry: 1, backtrace: 2
  sidekiq_retry_in { |count, _error, _job| 1000 + count }
  sidekiq_retries_exhausted { |job, error| Sidekiq.redis { |conn| conn.rpush("aj:exhausted", "#{job["wrapped"]} #{error.message}") } }

  def perform(name) = raise("#{name} broke")
end

class ActiveJobInsideTest < Minitest::Test
  def setup
    Deckhand.config = Deckhand::Config.new(redis: {url: ENV.fetch("REDIS_URL")}) # a server froze the last one
    Sidekiq.redis { |conn| conn.call("FLUSHDB") }
    ActiveJob::Base.logger = Logger.new(File::NULL)
    Deckhand.config.logger = Logger.new(File::NULL)
  end

  def test_the_sidekiq_adapter_is_deckhands_and_sidekiqs_wrapped_jobs_run
    ActiveJob::Base.queue_adapter = :sidekiq
    assert_kind_of ActiveJob::QueueAdapters::DeckhandAdapter, ActiveJob::Base.queue_adapter
    HelloJob.perform_later("ada")
    queued = JSON.parse(Sidekiq.redis { |conn| conn.lindex("queue:default", 0) })
    # The class name the Sidekiq version's adapter writes: a Sidekiq process of the fleet runs it too.
    written = Sidekiq::VERSION.start_with?("8.") ? "Sidekiq::ActiveJob::Wrapper" : "ActiveJob::QueueAdapters::SidekiqAdapter::JobWrapper"
    assert_equal [written, "HelloJob"], queued.values_at("class", "wrapped")

    # As Sidekiq 7.3's and Rails' own adapters queued them before the switch.
    %w[Sidekiq::ActiveJob::Wrapper ActiveJob::QueueAdapters::SidekiqAdapter::JobWrapper].each_with_index do |wrapper, i|
      Sidekiq::Client.push("class" => wrapper, "wrapped" => "HelloJob", "queue" => "default", "args" => [HelloJob.new("sidekiq-#{i}").serialize])
    end

    embedded = Deckhand::Embedded.new(Deckhand.config)
    embedded.start
    deadline = Process.clock_gettime(Process::CLOCK_MONOTONIC) + 10
    sleep 0.02 until done.size == 3 || Process.clock_gettime(Process::CLOCK_MONOTONIC) > deadline
    embedded.stop
    assert_equal %w[ada sidekiq-0 sidekiq-1], done.sort
  end

  def test_sidekiq_options_and_retry_rules_of_an_active_job_class_take_effect
    ActiveJob::Base.queue_adapter = :sidekiq
    assert_equal({"retry" => 1, "backtrace" => 2}, FragileJob.get_sidekiq_options.slice("retry", "backtrace"))
    jid = FragileJob.perform_later("vase").provider_job_id
    queued = JSON.parse(Sidekiq.redis { |conn| conn.lindex("queue:default", 0) })
    assert_equal [1, 2, "default"], queued.values_at("retry", "backtrace", "queue")

    embedded = Deckhand::Embedded.new(Deckhand.config)
    embedded.start
    wait_until("the retry, due after sidekiq_retry_in's 1000 s") { Sidekiq.redis { |conn| conn.zcard("retry") } == 1 }
    retried, score = Sidekiq.redis { |conn| conn.zrange("retry", 0, 0, "WITHSCORES") }.first
    assert_in_delta Time.now.to_f + 1000, score.to_f, 30
    retried_job = JSON.parse(retried)
    assert_equal [jid, 0], retried_job.values_at("jid", "retry_count")
    assert retried_job["error_backtrace"], "backtrace: 2 keeps the backtrace"
    # Due now: the second failure exhausts retry: 1 and calls sidekiq_retries_exhausted.
    Sidekiq.redis { |conn| conn.zadd("retry", 0, retried) }
    wait_until("the dead job") { Sidekiq.redis { |conn| conn.zcard("dead") } == 1 }
    embedded.stop
    assert_equal ["FragileJob vase broke"], Sidekiq.redis { |conn| conn.lrange("aj:exhausted", 0, -1) }
  end

  private

  def wait_until(what)
    deadline = Process.clock_gettime(Process::CLOCK_MONOTONIC) + 10
    until yield
      flunk("timed out waiting for #{what}") if Process.clock_gettime(Process::CLOCK_MONOTONIC) > deadline
      sleep 0.02
    end
  end

  def done = Sidekiq.redis { |conn| conn.lrange("aj:done", 0, -1) }
end
