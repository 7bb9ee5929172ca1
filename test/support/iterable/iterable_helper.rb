# frozen_string_literal: true

require "test_helper"

# Iterable jobs run by an in-process server. Each records the items it
# processed (the ledger) and its callbacks in Redis, where the tests read them.
module IterableJobs
  LEDGER = "iterable:ledger"
  CALLBACKS = "iterable:callbacks"

  # The jobs' own connections: the harness' client is the test thread's alone.
  POOL = ConnectionPool.new(size: 5) { RedisClient.new(url: Deckhand::RedisHarness.url) }

  def self.call(*command) = POOL.with { |conn| conn.call(*command) }

  def self.record(list, value) = call("RPUSH", list, value.to_s)

  def self.ledger = call("LRANGE", LEDGER, 0, -1).map(&:to_i)

  def self.callbacks = call("LRANGE", CALLBACKS, 0, -1)

  # Tells a waiting job to go on: the job waits in each_iteration until the
  # test lets it pass item `n` (so the test decides where it stops).
  GATE = "iterable:gate"

  def self.open_gate(upto) = call("SET", GATE, upto.to_s)

  def self.gate = call("GET", GATE)&.to_i

  # Where a job waits for the gate: a test stops the server once the job
  # stands there, not merely once the step before it is done (the job may
  # not have reached the next step's check yet: JRuby is slower to it).
  WAITING = "iterable:waiting"

  def self.waiting = call("GET", WAITING)&.to_i

  # Waits before item n until the gate is at least n (10 s at most).
  def self.pass_gate(n)
    return if (gate || -1) >= n
    call("SET", WAITING, n.to_s)
    deadline = ::Process.clock_gettime(::Process::CLOCK_MONOTONIC) + 10
    sleep 0.005 until (gate || -1) >= n || ::Process.clock_gettime(::Process::CLOCK_MONOTONIC) > deadline
  end

  module Recording
    def on_start = IterableJobs.record(CALLBACKS, "start")

    def on_resume = IterableJobs.record(CALLBACKS, "resume")

    def on_stop = IterableJobs.record(CALLBACKS, "stop")

    def on_complete = IterableJobs.record(CALLBACKS, "complete")

    def on_cancel = IterableJobs.record(CALLBACKS, "cancel")
  end

  # Walks 0...count; each step records its item.
  class CountJob
    include Deckhand::IterableJob
    include Recording

    def build_enumerator(count, cursor:) = array_enumerator((0...count).to_a, cursor: cursor)

    def each_iteration(item, _count) = IterableJobs.record(LEDGER, item)
  end

  # Waits before item n until the gate is at least n (10 s at most).
  class GatedJob
    include Deckhand::IterableJob
    include Recording

    def build_enumerator(count, cursor:) = array_enumerator((0...count).to_a, cursor: cursor)

    def each_iteration(item, _count)
      IterableJobs.pass_gate(item)
      IterableJobs.record(LEDGER, item)
    end
  end

  # Fails at item `fail_at` on its first execution only.
  class FailingJob
    include Deckhand::IterableJob
    include Recording

    deckhand_retry_in { |_count, _error, _payload| 0 }

    def build_enumerator(count, _fail_at, cursor:) = array_enumerator((0...count).to_a, cursor: cursor)

    def each_iteration(item, _count, fail_at)
      raise "item #{item} failed" if item == fail_at && first_attempt?
      IterableJobs.record(LEDGER, item)
    end

    private

    def first_attempt? = deckhand_payload["retry_count"].nil?
  end

  # Each step takes a little while (work, not a wait).
  class SlowStepJob
    include Deckhand::IterableJob
    include Recording

    def build_enumerator(count, cursor:) = array_enumerator((0...count).to_a, cursor: cursor)

    def each_iteration(item, _count)
      sleep 0.02
      IterableJobs.record(LEDGER, item)
    end
  end

  # Gives itself 0.2 s per run.
  class BudgetJob < SlowStepJob
    deckhand_options max_iteration_runtime: 0.2
  end

  # Asks to stop (interrupted?, Sidekiq's name) after 3 steps of a run.
  class PoliteJob < CountJob
    def each_iteration(item, count)
      @steps = (@steps || 0) + 1
      super
    end

    def interrupted? = @steps == 3
  end

  # No budget of its own: the configuration's max_iteration_runtime applies.
  class ConfigBudgetJob < SlowStepJob
  end

  # Reads what it sees of itself while it runs.
  # Says it is interrupted after every third step of a run (Sidekiq's hook).
  class ThirdsJob < CountJob
    def each_iteration(item, count)
      super
      @steps = (@steps || 0) + 1
    end

    def interrupted? = @steps == 3
  end

  class ReaderJob
    include Deckhand::IterableJob

    def build_enumerator(label, cursor:) = array_enumerator(%w[a b], cursor: cursor)

    def each_iteration(item, label)
      IterableJobs.record(LEDGER, [item, cursor, current_object, arguments, label].to_json)
    end
  end

  # Ends itself as complete after two items.
  class AbortingJob
    include Deckhand::IterableJob
    include Recording

    def build_enumerator(cursor:) = array_enumerator([0, 1, 2, 3], cursor: cursor)

    def each_iteration(item)
      throw :abort if item == 2
      IterableJobs.record(LEDGER, item)
    end
  end
end

module IterableTestSetup
  def iterable_config(**settings) = new_config(concurrency: 2, scheduler_interval: 0.1, heartbeat_interval: 0.2, **settings)

  def state(jid) = redis.call("HGETALL", "it-#{jid}")
end
