# frozen_string_literal: true

require "test_helper"
require "stringio"
require "deckhand/server"

# The server middleware that writes a tick's outcome, called as a processor
# calls it, against a real Redis: each way a job can end, jobs that are not
# ticks, a history Redis refuses, and the chains it is installed in.
class PeriodicTickOutcomesTest < Minitest::Test
  def store = Deckhand::RedisHarness.store

  def config(log = nil)
    config = new_config
    config.logger = ::Logger.new(log) if log
    config
  end

  def tick(jid = "a" * 24) = {"class" => "NightlyJob", "args" => [], "jid" => jid, "queue" => "reports", "periodic" => "nightly", "periodic_at" => 1_764_000_000}

  def history = Deckhand::Store::Scripts::PeriodicHistory.read(store, ["nightly"]).first

  def run_job(job, config: self.config, &block)
    Deckhand::Periodic::TickOutcomes.new(config).call(nil, job, job["queue"]) do
      assert_equal "running", history.first["state"], "running while perform runs"
      block&.call
    end
  end

  def test_a_tick_that_returns_succeeded_after_running
    run_job(tick) { sleep 0.05 }
    record = history.first
    assert_equal ["succeeded", 1_764_000_000, "a" * 24, "reports"], record.values_at("state", "tick", "jid", "queue")
    assert_operator record["at"] - record["started_at"], :>=, 0.04
  end

  def test_a_tick_that_raises_failed_with_its_error_class_and_the_error_goes_on
    assert_raises(IOError) { run_job(tick) { raise IOError, "disk" } }
    assert_equal ["failed", "IOError"], history.first.values_at("state", "error")
  end

  def test_a_tick_handed_back_or_cancelled
    assert_raises(Deckhand::Shutdown) { run_job(tick) { raise Deckhand::Shutdown } }
    assert_equal ["enqueued", "handed back: its process stopped"], history.first.values_at("state", "reason")
    assert_raises(Deckhand::Cancelled) { run_job(tick) { raise Deckhand::Cancelled } }
    assert_equal ["failed", "Deckhand::Cancelled"], history.first.values_at("state", "error")
  end

  def test_a_job_that_is_not_a_tick_writes_nothing
    ran = false
    Deckhand::Periodic::TickOutcomes.new(config).call(nil, {"class" => "X", "jid" => "b" * 24}, "default") { ran = true }
    Deckhand::Periodic::TickOutcomes.new(config).call(nil, {"class" => "X", "periodic" => "nightly", "periodic_at" => "soon"}, "default") { nil }
    assert ran
    assert_empty redis.call("KEYS", "deckhand:periodic:*")
  end

  def test_a_history_redis_refuses_costs_the_job_nothing
    log = StringIO.new
    redis.call("SET", "deckhand:periodic:history:nightly", "mine")
    ran = false
    Deckhand::Periodic::TickOutcomes.new(config(log)).call(nil, tick, "reports") { ran = true }
    assert ran
    assert_includes log.string, "periodic nightly: the history of tick 1764000000 (running) was not written"
    assert_includes log.string, "(succeeded) was not written"
    assert_equal "mine", redis.call("GET", "deckhand:periodic:history:nightly")
  end

  def test_boot_installs_it_first_in_the_configurations_chain_and_each_capsules_own
    config = self.config
    config.server_middleware.add(Class.new { def call(*) = yield })
    config.capsule("imports", concurrency: 1, queues: ["imports"]) { |cap| cap.server_middleware.add(Class.new { def call(*) = yield }) }
    config.capsule("plain", concurrency: 1, queues: ["plain"])
    config.freeze!
    assert_equal Deckhand::Periodic::TickOutcomes, config.server_middleware.entries.first.klass
    assert_equal Deckhand::Periodic::TickOutcomes, config.capsules.fetch("imports").server_middleware.entries.first.klass
    assert_equal 1, config.server_middleware.entries.count { |e| e.klass == Deckhand::Periodic::TickOutcomes }
  end
end
