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

class ActiveJobInsideTest < Minitest::Test
  def setup
    Sidekiq.redis { |conn| conn.call("FLUSHDB") }
    ActiveJob::Base.logger = Logger.new(File::NULL)
    Deckhand.config.logger = Logger.new(File::NULL)
  end

  def test_the_sidekiq_adapter_is_deckhands_and_sidekiqs_wrapped_jobs_run
    ActiveJob::Base.queue_adapter = :sidekiq
    assert_kind_of ActiveJob::QueueAdapters::DeckhandAdapter, ActiveJob::Base.queue_adapter
    HelloJob.perform_later("ada")
    queued = JSON.parse(Sidekiq.redis { |conn| conn.lindex("queue:default", 0) })
    assert_equal ["ActiveJob::QueueAdapters::DeckhandAdapter::JobWrapper", "HelloJob"], queued.values_at("class", "wrapped")

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

  private

  def done = Sidekiq.redis { |conn| conn.lrange("aj:done", 0, -1) }
end
