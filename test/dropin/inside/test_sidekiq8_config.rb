# frozen_string_literal: true

# Runs in a drop-in child (test/dropin/sidekiq8_api_test.rb starts it): the
# configuration calls Sidekiq 8 added, and iteration's interruption.
require "minitest/autorun"
require "stringio"
require "sidekiq"
require "sidekiq/job/interrupt_handler"

class Sidekiq8ConfigTest < Minitest::Test
  class Steps
    include Sidekiq::IterableJob

    def build_enumerator(cursor:) = array_enumerator((1..50).to_a, cursor: cursor)

    def each_iteration(_item) = sleep(0.01)
  end

  def setup
    RedisClient.new(url: ENV.fetch("REDIS_URL")).call("FLUSHDB")
    Deckhand.config = Deckhand::Config.new(redis: Deckhand.default_redis)
    @log = StringIO.new
    @config = Sidekiq.default_configuration
    @config.logger = Logger.new(@log)
  end

  def test_thread_priority_is_kept_and_noted_once
    @config.thread_priority = 0
    @config.thread_priority = -1
    assert_equal(-1, @config.thread_priority)
    assert_equal(-1, @config.capsule("single").thread_priority, "a capsule reads the configuration's")
    assert_equal 1, @log.string.scan("thread_priority is accepted and changes nothing on Deckhand").size
  end

  def test_reap_idle_redis_connections_keeps_the_timeout
    @config.reap_idle_redis_connections(30)
    assert_equal 30, @config[:redis_idle_timeout]
    @config.reap_idle_redis_connections
    assert_equal 60, @config[:redis_idle_timeout]
    assert_match(/reap_idle_redis_connections is accepted/, @log.string)
  end

  def test_on_exit_is_a_lifecycle_event
    ran = []
    @config.on(:exit) { ran << :exit }
    assert_equal 1, @config[:lifecycle_events][:exit].size
    Deckhand.config.events.fire(:exit, Deckhand.config.logger)
    assert_equal [:exit], ran
  end

  def test_max_iteration_runtime_interrupts_an_iterable_job
    @config[:max_iteration_runtime] = 0.05
    assert_equal 0.05, Deckhand.config.max_iteration_runtime
    assert_raises(Sidekiq::Job::Interrupted) { Steps.perform_inline }
  end

  def test_interrupt_handler_pushes_the_job_back_and_skips_the_retry
    @config[:max_iteration_runtime] = 0.05
    job = Steps.new
    job.jid = "abc123abc123abc123abc123"
    payload = {"class" => Steps.name, "args" => [], "jid" => job.jid, "queue" => "default", "retry" => true}
    assert_raises(Sidekiq::JobRetry::Skip) { Sidekiq::Job::InterruptHandler.new.call(job, payload, "default") { job.perform } }
    queued = Sidekiq::Queue.new("default").map(&:jid)
    assert_equal [job.jid], queued
  end

  def test_handle_exception_logs_the_context_both_ways_and_calls_three_argument_handlers
    log = StringIO.new
    @config.logger = Sidekiq::Logger.new(log).tap { |logger| logger.formatter = Sidekiq::Logger::Formatters::Pretty.new }
    seen = []
    @config.error_handlers << ->(error, context, config) { seen << [error.message, context, config.class] }
    @config.handle_exception(RuntimeError.new("Something didn't work!"), a: 1)
    assert_match(/a=1/, log.string, "Sidekiq 8's log context")
    assert_includes log.string, '{"a":1}', "Sidekiq 7's context line"
    assert_equal [["Something didn't work!", {a: 1}, Sidekiq::Config]], seen
  end
end
