# frozen_string_literal: true

# Runs in a drop-in child without the sidekiq gem (test/dropin/only_jobs_test.rb):
# what a drop-in server runs (Sidekiq::Job and Sidekiq::Worker classes, the
# Active Job jobs Sidekiq's adapters wrote) and what it never builds.
require "minitest/autorun"
require "active_job"
require "deckhand/sidekiq"
require "deckhand/embedded"

class WorkerJob
  include Sidekiq::Worker

  def perform(name) = Sidekiq.redis { |conn| conn.rpush("only:done", "worker #{name}") }
end

class SidekiqJob
  include Sidekiq::Job

  def perform(name) = Sidekiq.redis { |conn| conn.rpush("only:done", "job #{name}") }
end

class WrappedJob < ActiveJob::Base
  def perform(name) = Sidekiq.redis { |conn| conn.rpush("only:done", "active job #{name}") }
end

# A plain service object, the kind a Sidekiq app has many of.
class Canary
  def initialize = Sidekiq.redis { |conn| conn.rpush("only:built", "Canary") }

  def perform(*) = Sidekiq.redis { |conn| conn.rpush("only:built", "Canary#perform") }
end

class OnlyJobsInsideTest < Minitest::Test
  CANARY = '{"class":"Canary","args":[1],"jid":"c1","queue":"default"}'

  def setup
    Deckhand.config = Deckhand::Config.new(redis: {url: ENV.fetch("REDIS_URL")})
    Sidekiq.redis { |conn| conn.call("FLUSHDB") }
    ActiveJob::Base.logger = Logger.new(File::NULL)
    Deckhand.config.logger = Logger.new(File::NULL)
  end

  def test_sidekiq_jobs_and_active_job_wrappers_run_and_a_plain_class_goes_dead_unbuilt
    ActiveJob::Base.queue_adapter = :sidekiq
    WorkerJob.perform_async("w")
    SidekiqJob.perform_async("s")
    WrappedJob.perform_later("aj")
    %w[Sidekiq::ActiveJob::Wrapper ActiveJob::QueueAdapters::SidekiqAdapter::JobWrapper].each_with_index do |wrapper, i|
      Sidekiq::Client.push("class" => wrapper, "wrapped" => "WrappedJob", "queue" => "default", "args" => [WrappedJob.new("raw #{i}").serialize])
    end
    Sidekiq.redis { |conn| conn.lpush("queue:default", CANARY) }

    embedded = Deckhand::Embedded.new(Deckhand.config)
    embedded.start
    wait_until("five jobs and a dead entry") { done.size == 5 && Sidekiq::DeadSet.new.size == 1 }
    embedded.stop
    assert_equal ["active job aj", "active job raw 0", "active job raw 1", "job s", "worker w"], done.sort
    assert_equal [], Sidekiq.redis { |conn| conn.lrange("only:built", 0, -1) }, "Canary was built"
    dead = Sidekiq::DeadSet.new.first
    assert_equal CANARY, dead.item["raw"].unpack1("m0")
    assert_equal "Deckhand::NotAJobClass", dead.item["error_class"]
    assert_includes dead.item["error_message"], "Canary is not a job class: include Deckhand::Job (or Sidekiq::Job in drop-in mode)"
  end

  private

  def done = Sidekiq.redis { |conn| conn.lrange("only:done", 0, -1) }

  def wait_until(what)
    deadline = Process.clock_gettime(Process::CLOCK_MONOTONIC) + 20
    until yield
      flunk("timed out waiting for #{what}") if Process.clock_gettime(Process::CLOCK_MONOTONIC) > deadline
      sleep 0.02
    end
  end
end
