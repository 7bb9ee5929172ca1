# frozen_string_literal: true

require "test_helper"
require_relative "compat_helper"
require "sidekiq/job/interrupt_handler"

# One iterable job, two servers: Sidekiq::IterableJob and Deckhand::IterableJob
# share `it-<jid>`, so a job interrupted on either resumes on the other.
module IterableInterop
  LEDGER = "interop:ledger"
  CALLBACKS = "interop:callbacks"
  COUNT = 1200

  # Through Sidekiq's pool: safe in this process and in the forked child.
  def self.record(list, value) = Sidekiq.redis { |conn| conn.call("RPUSH", list, value.to_s) }

  # Who ran it: the pid, this process (Deckhand) or the Sidekiq child.
  def self.callback(name) = record(CALLBACKS, "#{::Process.pid}:#{name}")

  # Both versions walk 0...COUNT; each step takes a little work.
  module Walk
    def build_enumerator(count, cursor:) = array_enumerator((0...count).to_a, cursor: cursor)

    def on_start = IterableInterop.callback("start")

    def on_resume = IterableInterop.callback("resume")

    def on_complete = IterableInterop.callback("complete")
  end

  # The Sidekiq child's version of InteropWalkJob (see .sidekiq_setup).
  class SidekiqWalk
    include Sidekiq::IterableJob
    include Walk

    sidekiq_options queue: Deckhand::CompatTest::QUEUE

    def each_iteration(item, _count)
      sleep 0.003
      IterableInterop.record(LEDGER, item)
    end
  end

  # In the Sidekiq child, InteropWalkJob is Sidekiq's iterable job, and
  # Sidekiq's own interrupt handler (which its CLI installs) re-pushes it.
  def self.sidekiq_setup(config)
    Object.send(:remove_const, :InteropWalkJob)
    Object.const_set(:InteropWalkJob, SidekiqWalk)
    config.server_middleware { |chain| chain.add Sidekiq::Job::InterruptHandler }
  end
end

# The Deckhand version, in this process.
class InteropWalkJob
  include Deckhand::IterableJob
  include IterableInterop::Walk

  deckhand_options queue: Deckhand::CompatTest::QUEUE

  def each_iteration(item, _count)
    sleep 0.003
    IterableInterop.record(IterableInterop::LEDGER, item)
  end
end

class IterableInteropTest < Minitest::Test
  include Deckhand::CompatTest

  def test_interrupted_on_sidekiq_it_resumes_on_deckhand
    jid = InteropWalkJob.perform_async(IterableInterop::COUNT)
    Deckhand::SidekiqHarness.server(queues: [QUEUE], setup: IterableInterop.method(:sidekiq_setup)) do
      wait_for(message: "Sidekiq to walk some items", timeout: 20) { ledger.size >= 50 }
    end # Sidekiq's graceful stop interrupts the job between two steps
    stopped_at = ledger.size
    assert_operator stopped_at, :<, IterableInterop::COUNT, "interrupted midway"
    saved = redis.call("HGETALL", "it-#{jid}")
    assert_equal ["1", stopped_at], [saved["ex"], JSON.parse(saved["c"])], "Sidekiq saved the cursor of the next item"
    assert_equal [jid], jobs_in(QUEUE).map { |job| job["jid"] }, "Sidekiq pushed it back"

    with_server(fast_config) do
      wait_for(message: "Deckhand to complete it", timeout: 20) { callbacks.any? { |c| c.end_with?(":complete") } }
    end
    assert_walked_once(interruptions: 1)
    assert_equal %w[start resume complete], callbacks.map { |c| c.split(":").last }
    refute_equal ::Process.pid.to_s, callbacks.first.split(":").first, "started by Sidekiq, in its child"
    assert_equal ::Process.pid.to_s, callbacks.last.split(":").first, "resumed and completed by Deckhand, in this process"
    assert_equal 0, redis.call("EXISTS", "it-#{jid}")
  end

  def test_interrupted_on_deckhand_it_resumes_on_sidekiq
    jid = InteropWalkJob.perform_async(IterableInterop::COUNT)
    with_server(fast_config) do
      wait_for(message: "Deckhand to walk some items", timeout: 20) { ledger.size >= 50 }
      # What Sidekiq 8.1.4+'s Busy page shows of a running iterable job (7.3 has no reader: its fields, raw).
      state = Sidekiq.const_defined?(:IterableJobQuery) ? Sidekiq::IterableJobQuery.new([jid])[jid] : redis.call("HGETALL", "it-#{jid}")
      assert_equal 1, state.is_a?(Hash) ? state["ex"].to_i : state.executions
      assert_kind_of Integer, state.is_a?(Hash) ? JSON.parse(state["c"]) : state.cursor
    end # Deckhand's graceful stop interrupts the job between two steps
    stopped_at = ledger.size
    assert_operator stopped_at, :<, IterableInterop::COUNT, "interrupted midway"
    saved = redis.call("HGETALL", "it-#{jid}")
    assert_equal ["1", stopped_at], [saved["ex"], JSON.parse(saved["c"])]
    assert_equal [jid], zset("schedule").map { |job, _| job["jid"] }, "put back, due now"

    Deckhand::SidekiqHarness.server(queues: [QUEUE], setup: IterableInterop.method(:sidekiq_setup)) do
      wait_for(message: "Sidekiq to complete it", timeout: 30) { callbacks.any? { |c| c.end_with?(":complete") } }
    end
    assert_walked_once(interruptions: 1)
    assert_equal %w[start resume complete], callbacks.map { |c| c.split(":").last }
    refute_equal ::Process.pid.to_s, callbacks.last.split(":").first, "completed by Sidekiq, in its child"
    assert_equal 0, redis.call("EXISTS", "it-#{jid}"), "Sidekiq deleted the state Deckhand saved"
  end

  def test_cancelled_by_sidekiqs_client_it_stops_on_deckhand
    jid = InteropWalkJob.perform_async(IterableInterop::COUNT)
    assert_kind_of Integer, Sidekiq::Client.new.cancel!(jid)
    with_server(fast_config) do
      wait_for(message: "the job to end") { redis.call("EXISTS", "it-#{jid}").zero? }
    end
    assert_empty ledger
    assert_empty callbacks, "a cancelled job that never started runs only on_cancel (not defined here)"
    assert_equal [0, 0, 0], %w[retry dead schedule].map { |set| redis.call("ZCARD", set) }
  end

  private

  def ledger = redis.call("LRANGE", IterableInterop::LEDGER, 0, -1).map(&:to_i)

  def callbacks = redis.call("LRANGE", IterableInterop::CALLBACKS, 0, -1)

  def assert_walked_once(interruptions:)
    seen = ledger
    assert_equal (0...IterableInterop::COUNT).to_a, seen.uniq.sort, "every item processed"
    assert_operator seen.size - IterableInterop::COUNT, :<=, interruptions, "at most one item twice per interruption"
  end
end
