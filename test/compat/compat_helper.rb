# frozen_string_literal: true

# Shared by the files in test/compat/, which prove that Deckhand and the real
# Sidekiq gem (the Gemfile's compat group) share one Redis faithfully. Only these
# tests load Sidekiq; Deckhand itself never requires it.
require "test_helper"
require_relative "../support/sidekiq_harness" # requires sidekiq and sidekiq/api

module Deckhand
  # Test setup for the compat files: Sidekiq's client and API on the test Redis,
  # and a Deckhand config that beats and polls often so waits stay short.
  module CompatTest
    QUEUE = "compat"
    # The sidekiq gem of this bundle: 7.3 (Ruby 3.1's bundle) or 8.1 (3.3's).
    SIDEKIQ_7 = Sidekiq::VERSION.start_with?("7.")
    # How that Sidekiq writes created_at and enqueued_at, and so what Deckhand
    # writes beside it with `timestamps: :auto`: Float seconds, or Integer ms.
    FLEET_TIME = SIDEKIQ_7 ? Float : Integer

    def setup
      super
      SidekiqHarness.client!
      CompatGate.reset
    end

    def fast_config(**settings)
      new_config(queues: [QUEUE], concurrency: 2, heartbeat_interval: 0.1, scheduler_interval: 0.1, timeout: 2, **settings)
    end

    def runs_of(jid) = Deckhand::TestJobs.runs.select { |j, _| j == jid }
  end

  # Lets a test hold a job mid-run (to see it in Sidekiq's WorkSet) and release it.
  module CompatGate
    @lock = Mutex.new
    @opened = ConditionVariable.new
    @open = false

    class << self
      def reset = @lock.synchronize { @open = false }

      # Blocks until opened, 10 s at most (so a failed test cannot hang its server).
      def wait = @lock.synchronize { @opened.wait(@lock, 10) unless @open }

      def open
        @lock.synchronize do
          @open = true
          @opened.broadcast
        end
      end
    end
  end
end

class CompatError < StandardError; end

# An ordinary Sidekiq job class, as an application migrating to Deckhand has
# them: Sidekiq's client pushes it, Deckhand runs it unchanged.
class SidekiqWrittenJob
  include Sidekiq::Job

  sidekiq_options queue: Deckhand::CompatTest::QUEUE

  def perform(*args)
    Deckhand::TestJobs.record([jid, args])
  end
end

# A class mid-migration, carrying both mixins: Deckhand's, included last, is the
# one whose perform_async/perform_in/perform_bulk push it; Sidekiq's lets a
# Sidekiq server run it. It runs inside the Sidekiq child and reports there.
class MigratingJob
  include Sidekiq::Job
  include Deckhand::Job

  def perform(*args)
    Deckhand::SidekiqHarness.report(jid, args)
  end
end

# Pushed and run by Deckhand; fails its first `failures` runs (per jid).
class CompatFlakyJob
  include Deckhand::Job

  deckhand_options queue: Deckhand::CompatTest::QUEUE

  def perform(label, failures)
    attempt = Deckhand::TestJobs.runs.count { |j, _| j == jid } + 1
    Deckhand::TestJobs.record([jid, [label, failures]])
    raise CompatError, "#{label} failed on attempt #{attempt}" if attempt <= failures
  end
end

# Pushed and run by Deckhand; holds its thread until CompatGate.open.
class CompatGateJob
  include Deckhand::Job

  deckhand_options queue: Deckhand::CompatTest::QUEUE

  def perform(label)
    Deckhand::TestJobs.record([jid, [label, :start]])
    Deckhand::CompatGate.wait
  end
end

# CompatFlakyJob whose retries are due at once, to exhaust them quickly.
class CompatQuickRetryJob < CompatFlakyJob
  deckhand_retry_in { |_count, _error, _payload| 0 }
end
