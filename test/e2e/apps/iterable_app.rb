# frozen_string_literal: true

# The iterable jobs the end-to-end tests boot with `deckhand -r`, on top of the
# shared e2e application. Each step records its item in iterable:ledger (a
# Redis list, the ledger the tests check), each callback in iterable:callbacks.

require_relative "jobs"

module E2E
  module Iterable
    LEDGER = "iterable:ledger"
    CALLBACKS = "iterable:callbacks"

    # Records its callbacks; steps record their item after `pause` seconds of work.
    module Steps
      def on_start = E2E.call("RPUSH", CALLBACKS, "start")

      def on_resume = E2E.call("RPUSH", CALLBACKS, "resume")

      def on_stop = E2E.call("RPUSH", CALLBACKS, "stop")

      def on_cancel = E2E.call("RPUSH", CALLBACKS, "cancel")

      def on_complete = E2E.call("RPUSH", CALLBACKS, "complete")

      def build_enumerator(count, _pause, *, cursor:) = array_enumerator(Array.new(count) { |i| i }, cursor: cursor)

      def each_iteration(item, _count, pause, *)
        sleep pause # the work of a step
        E2E.call("RPUSH", LEDGER, item)
      end
    end

    class WalkJob
      include Deckhand::IterableJob
      include Steps
    end

    # After item `hold_at` (or each of a list) it holds until the server stops
    # (or 30 s pass), so a test's TERM lands at a known place;
    # iterable:holding says which item it holds after.
    class HoldJob
      include Deckhand::IterableJob
      include Steps

      def each_iteration(item, count, pause, hold_at)
        super
        return unless Array(hold_at).include?(item)
        E2E.call("SET", "iterable:holding", item.to_s)
        deadline = ::Process.clock_gettime(::Process::CLOCK_MONOTONIC) + 30
        sleep 0.01 until Deckhand::Lifecycle.stopping? || ::Process.clock_gettime(::Process::CLOCK_MONOTONIC) > deadline
      end
    end

    # Its step `slow_at` takes 30 s, once: longer than the shutdown timeout.
    class LongStepJob
      include Deckhand::IterableJob
      include Steps

      def each_iteration(item, count, pause, slow_at)
        if item == slow_at && E2E.call("SET", "iterable:long-step", "1", "NX")
          sleep 30 # work that outlasts the shutdown timeout
        end
        super
      end
    end

    # Runs 0.3 s at a time, then stops to resume later.
    class BudgetJob
      include Deckhand::IterableJob
      include Steps

      deckhand_options max_iteration_runtime: 0.3
    end

    # Fails at item `fail_at` on its first attempt; its retry is due at once.
    class FailOnceJob
      include Deckhand::IterableJob
      include Steps

      deckhand_retry_in { |_count, _error, _payload| 0 }

      def each_iteration(item, count, pause, fail_at)
        raise "step #{item} failed" if item == fail_at && deckhand_payload["retry_count"].nil?
        super
      end
    end
  end
end
