# frozen_string_literal: true

require_relative "rails_helper"
require_relative "../support/second_redis"

class RailtieTest < Minitest::Test
  include Deckhand::RailsTestApp

  def test_reads_config_deckhand_yml_and_logs_through_rails
    config = Deckhand::RailsTestApp.boot_config
    assert_equal Deckhand::RedisHarness.url, config.redis[:url]
    assert_equal :float, config.timestamps
    assert_equal 200_000, config.max_payload_bytes
    assert_in_delta 0.25, config.push_replicas_timeout
    assert_same Rails.logger, config.logger
    assert_same Rails.application.reloader, config.executor, "jobs and their class lookup run inside the reloader"
    refute Deckhand::Railtie.server?
  end

  def test_active_job_runs_on_deckhand
    assert_kind_of ActiveJob::QueueAdapters::DeckhandAdapter, ActiveJob::Base.queue_adapter
    assert_kind_of ActiveJob::QueueAdapters::DeckhandAdapter, RailsJobs::GreetJob.queue_adapter
  end

  def test_jobs_run_inside_the_rails_executor
    RailsJobs::NativeJob.perform_async("wrapped")
    RailsJobs::GreetJob.perform_later("ada")
    with_server(rails_config(queues: %w[default mailers])) do
      wait_for(message: "both jobs") { (@seen = (@seen || []) + recorded).size == 2 }
    end
    assert_includes @seen, ["native", "wrapped", true]
    assert_equal true, @seen.assoc("greet").last
  end

  def test_without_the_reloader_middleware_jobs_run_outside_the_executor
    RailsJobs::NativeJob.perform_async("bare")
    with_server(new_config) { wait_for(message: "the job") { (@seen = recorded).any? } }
    assert_equal [["native", "bare", false]], @seen
  end

  def test_a_job_pushed_in_a_transaction_is_sent_when_it_commits
    User.transaction do
      User.create!(name: "ada")
      RailsJobs::NativeJob.perform_async("after commit")
      User.transaction(requires_new: true) { RailsJobs::NativeJob.perform_async("nested") }
      assert_empty jobs_in("default"), "pushed before the transaction committed"
    end
    assert_equal [["after commit"], ["nested"]], jobs_in("default").reverse.map { |job| job["args"] }
  end

  # Rails' transactional tests pin one connection inside a transaction that
  # does not count: the code's own transaction still decides.
  def test_in_a_transactional_test_the_codes_own_commit_sends_the_job
    ActiveRecord::Base.connection_pool.pin_connection!(true)
    User.transaction do
      RailsJobs::NativeJob.perform_async("inside a test transaction")
      assert_empty jobs_in("default")
    end
    assert_equal 1, jobs_in("default").size
  ensure
    ActiveRecord::Base.connection_pool.unpin_connection!
  end

  def test_a_job_pushed_in_a_transaction_that_rolls_back_is_never_sent
    jid = nil
    User.transaction do
      User.create!(name: "bob")
      jid = RailsJobs::NativeJob.perform_async("rolled back")
      raise ActiveRecord::Rollback
    end
    assert_match(/\A\h{24}\z/, jid)
    assert_equal 0, User.count
    assert_empty jobs_in("default")
  end

  def test_a_job_pushed_to_another_redis_in_a_transaction_is_sent_there_when_it_commits
    other = Deckhand::SecondRedis.client
    other.call("FLUSHALL")
    User.transaction do
      Deckhand::Client.via(Deckhand::SecondRedis.url) { RailsJobs::NativeJob.perform_async("sharded") }
      assert_equal 0, other.call("LLEN", "queue:default"), "pushed before the transaction committed"
    end
    assert_equal [["sharded"]], other.call("LRANGE", "queue:default", 0, -1).map { |raw| JSON.parse(raw)["args"] }
    assert_empty jobs_in("default")
  end

  def test_outside_a_transaction_a_push_is_immediate
    RailsJobs::NativeJob.perform_async("now")
    assert_equal 1, jobs_in("default").size
  end
end
