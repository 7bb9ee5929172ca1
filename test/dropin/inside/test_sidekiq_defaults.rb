# frozen_string_literal: true

# Runs in a drop-in child (test/dropin/sidekiq_defaults_test.rb starts it):
# what drop-in mode does as Sidekiq 7 does where Deckhand's own default
# differs: timestamps as Float seconds, the dead set's size, no backtrace
# kept with a failure, a capsule's own server middleware.
require "minitest/autorun"
require "sidekiq"
require "sidekiq/api"
require "sidekiq/job_retry"

class DefaultsStampJob
  include Sidekiq::Job
end

class DefaultsAudit
  def call(_job, _payload, _queue) = yield
end

class DefaultsTenant
  def call(_job, _payload, _queue) = yield
end

class SidekiqDefaultsTest < Minitest::Test
  def setup
    Sidekiq.redis { |conn| conn.flushdb }
  end

  def test_timestamps_are_float_seconds_as_sidekiq_7_writes_them
    assert_equal :float, Deckhand::Config.new.timestamps_setting
    before = Time.now.to_f
    DefaultsStampJob.perform_async(1)
    DefaultsStampJob.perform_in(60, 2)
    Sidekiq::Client.push_bulk("class" => DefaultsStampJob, "args" => [[3], [4]])
    jobs = Sidekiq::Queue.new.to_a + Sidekiq::ScheduledSet.new.to_a
    assert_equal 4, jobs.size
    jobs.each do |job|
      assert_kind_of Float, job["created_at"]
      assert_in_delta before, job["created_at"], 5
      assert_in_delta before, job.enqueued_at.to_f, 5 unless job["enqueued_at"].nil?
    end
  end

  def test_five_threads_and_perform_at_taking_a_delay_as_sidekiq_7
    assert_equal [5, 5], [Deckhand::Config.new.concurrency, Sidekiq::Config.new.concurrency]
    assert_equal 12, Deckhand::Config.new(concurrency: 12).concurrency
    DefaultsStampJob.perform_at(30, 1)
    at = Sidekiq::ScheduledSet.new.first.at.to_f
    assert_in_delta Time.now.to_f + 30, at, 5
  end

  def test_a_timestamps_setting_still_wins
    assert_equal :millis, Deckhand::Config.new(timestamps: :millis).timestamps
    assert_equal :auto, Deckhand::Config.new(timestamps: :auto).timestamps_setting
  end

  def test_dead_max_jobs_keeps_one_fewer_as_sidekiqs_trim_does
    config = Sidekiq.default_configuration
    assert_equal 10_000, config[:dead_max_jobs]
    assert_equal 9_999, config.config.dead_max_jobs
    config[:dead_max_jobs] = 3
    assert_equal [3, 2], [config[:dead_max_jobs], config.config.dead_max_jobs]
    dead = Sidekiq::DeadSet.new
    %w[d1 d2 d3].each { |jid| dead.kill(Sidekiq.dump_json("jid" => jid, "class" => "DefaultsStampJob", "args" => []), notify_failure: false) }
    assert_equal %w[d2 d3], dead.map(&:jid).sort
  ensure
    config[:dead_max_jobs] = 10_000
  end

  def test_a_failure_keeps_no_backtrace_unless_its_backtrace_option_asks_as_in_sidekiq_7
    assert_equal [0, 25], [Deckhand::Config.new.backtrace_lines, Deckhand::Config.new(backtrace_lines: 25).backtrace_lines]
    retry_handler = Sidekiq::JobRetry.new(Sidekiq.default_configuration)
    [["plain", {}], ["traced", {"backtrace" => 3}]].each do |jid, options|
      job = Sidekiq.dump_json({"class" => "DefaultsStampJob", "args" => [], "queue" => "default", "jid" => jid, "retry" => true}.merge(options))
      assert_raises(RuntimeError) { retry_handler.local(DefaultsStampJob.new, job, "default") { raise "boom" } }
    end
    traces = Sidekiq::RetrySet.new.to_h { |entry| [entry.jid, entry["error_backtrace"]] }
    assert_nil traces.fetch("plain")
    refute_nil traces.fetch("traced")
  end

  def test_a_capsule_runs_its_own_server_middleware
    config = Sidekiq::Config.new
    config.server_middleware { |chain| chain.add DefaultsAudit }
    config.capsule("imports") do |cap|
      cap.queues = %w[imports]
      cap.server_middleware { |chain| chain.add DefaultsTenant }
    end
    native = config.config.capsules.fetch("imports").server_middleware
    assert_equal [DefaultsAudit, DefaultsTenant], native.entries.map(&:klass)
    assert_equal [DefaultsAudit], config.server_middleware.entries.map(&:klass), "the configuration's chain is left alone"
    assert_equal [DefaultsAudit, DefaultsTenant], config.capsule("imports").server_middleware.map(&:klass)
    config.capsule("imports").concurrency = 3
    assert_same native, config.config.capsules.fetch("imports").server_middleware, "a later change keeps the chain"
    config.capsule("plain") { |cap| cap.queues = %w[plain] }
    assert_nil config.config.capsules.fetch("plain").server_middleware, "a capsule without a chain of its own runs the configuration's"
  end

  # As in Sidekiq 7.3: a capsule's client chain is a copy of the
  # configuration's, changed by its blocks, the configuration's left alone.
  def test_a_capsule_keeps_a_client_chain_of_its_own
    config = Sidekiq::Config.new
    config.client_middleware { |chain| chain.add DefaultsAudit }
    capsule = config.capsule("imports") { |cap| cap.queues = %w[imports] }
    assert_equal [DefaultsAudit], capsule.client_middleware.map(&:klass), "the configuration's chain until a block"
    capsule.client_middleware { |chain| chain.add DefaultsTenant }
    capsule.client_middleware { |chain| chain.remove DefaultsAudit }
    assert_equal [DefaultsTenant], capsule.client_middleware.map(&:klass)
    assert_equal [DefaultsAudit], config.client_middleware.map(&:klass), "the configuration's chain is left alone"
    assert_equal [DefaultsAudit, DefaultsTenant], config.capsule("default").client_middleware { |chain| chain.add DefaultsTenant }.map(&:klass),
      "the default capsule's chain is the configuration's"
    assert_equal [DefaultsAudit, DefaultsTenant], config.client_middleware.map(&:klass)
  end
end
