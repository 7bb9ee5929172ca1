# frozen_string_literal: true

# Runs in a drop-in child (test/dropin/client_middleware_calls_test.rb starts
# it): client middleware is called as Sidekiq 7 calls it, with the class as
# the push named it and the Redis pool the job goes to.
require "minitest/autorun"
require "sidekiq"
require "sidekiq/api"

class CallsReportJob
  include Sidekiq::Job

  sidekiq_options queue: "reports", tenant_header: "acme"
end

# Writes down what it was called with, and the pool's view of a key the
# test sets in the Redis the job goes to.
class CallsRecorder
  CALLS = []

  def call(job_class, job, queue, pool)
    CALLS << {job_class: job_class, queue: queue, pool: pool, jid: job["jid"],
              seen: pool.with { |conn| conn.get("calls:marker") },
              option: job_class.respond_to?(:get_sidekiq_options) ? job_class.get_sidekiq_options["tenant_header"] : nil}
    yield
  end
end

class ClientMiddlewareCallsTest < Minitest::Test
  def setup
    Sidekiq.redis { |conn| conn.flushdb }
    CallsRecorder::CALLS.clear
    Sidekiq.default_configuration.client_middleware { |chain| chain.add CallsRecorder }
    @shard = Sidekiq::RedisConnection.create(url: ENV.fetch("REDIS_URL").sub(%r{/\d*\z}, "/4"), size: 2)
    @shard.with { |conn| conn.flushdb }
  end

  def teardown
    Sidekiq.default_configuration.client_middleware { |chain| chain.remove CallsRecorder }
    @shard.shutdown
  end

  def test_perform_async_passes_the_job_class_and_the_configurations_pool
    Sidekiq.redis { |conn| conn.set("calls:marker", "main") }
    jid = CallsReportJob.perform_async(1)
    call = CallsRecorder::CALLS.fetch(0)
    assert_same CallsReportJob, call[:job_class]
    assert_equal ["reports", jid, "main", "acme"], call.values_at(:queue, :jid, :seen, :option)
    assert_same Sidekiq.default_configuration.redis_pool, call[:pool]
  end

  def test_client_push_passes_the_class_exactly_as_given
    Sidekiq::Client.push("class" => "CallsReportJob", "args" => [1])
    Sidekiq::Client.push("class" => CallsReportJob, "args" => [2])
    Sidekiq::Client.push_bulk("class" => CallsReportJob, "args" => [[3], [4]])
    CallsReportJob.client_push("args" => [5])
    kinds = CallsRecorder::CALLS.map { |call| call[:job_class] }
    assert_equal ["CallsReportJob", CallsReportJob, CallsReportJob, CallsReportJob, CallsReportJob], kinds
    assert_equal [4, 1], [Sidekiq::Queue.new("reports").size, Sidekiq::Queue.new.size], "a class named by a String brings no options"
  end

  def test_every_push_calls_middleware_so_deckhands_client_too
    Sidekiq.redis { |conn| conn.set("calls:marker", "main") }
    Deckhand::Client.push("class" => "CallsReportJob", "args" => [1])
    call = CallsRecorder::CALLS.fetch(0)
    assert_equal ["CallsReportJob", "main"], call.values_at(:job_class, :seen)
    assert_same Sidekiq.default_configuration.redis_pool, call[:pool]
  end

  def test_the_pool_is_the_shard_inside_a_via_block
    @shard.with { |conn| conn.set("calls:marker", "shard") }
    Sidekiq::Client.via(@shard) { CallsReportJob.perform_async(1) }
    assert_same @shard, CallsRecorder::CALLS.fetch(0)[:pool]
    assert_equal "shard", CallsRecorder::CALLS.fetch(0)[:seen]
    assert_equal 1, @shard.with { |conn| conn.llen("queue:reports") }
  end

  def test_a_past_time_still_enqueues_at_once
    CallsReportJob.perform_in(-30, 1)
    CallsReportJob.perform_at(Time.now - 60, 2)
    assert_equal [2, 0], [Sidekiq::Queue.new("reports").size, Sidekiq::ScheduledSet.new.size]
  end
end
