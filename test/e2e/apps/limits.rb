# frozen_string_literal: true

# Jobs for the limiter and throttle end-to-end tests: each records what it saw
# under `e2e:` keys. Loaded by `deckhand -r` and by the tests.

require_relative "jobs"

module E2E
  SHARED = Deckhand::Limiter.concurrent("e2e-shared", 2, wait_timeout: 60, lock_timeout: 30)
  STICKY = Deckhand::Limiter.concurrent("e2e-sticky", 1, wait_timeout: 60, lock_timeout: 2)

  # Counts the holders of `limiter` (or the running jobs of its queue) while
  # it runs: e2e:now:<name> is how many are inside, e2e:seen:<name> lists each
  # count seen on entry, e2e:done:<name> the jids that finished.
  module Ledger
    def self.inside(name, jid)
      E2E.call("RPUSH", "e2e:seen:#{name}", E2E.call("INCR", "e2e:now:#{name}"))
      yield
    ensure
      E2E.call("DECR", "e2e:now:#{name}")
      E2E.call("RPUSH", "e2e:done:#{name}", jid)
    end
  end

  class SharedJob
    include Deckhand::Job

    def perform(seconds)
      SHARED.within_limit { Ledger.inside("shared", jid) { sleep seconds } }
    end
  end

  # Takes the sticky slot; "forever" never lets go (its process is killed).
  class StickyJob
    include Deckhand::Job

    def perform(forever)
      STICKY.within_limit do
        E2E.call("RPUSH", "e2e:sticky", jid)
        sleep if forever
      end
    end
  end

  WINDOW = Deckhand::Limiter.window("e2e-window", 10, :second)
  FULL = Deckhand::Limiter.concurrent("e2e-full", 1, wait_timeout: 0, reschedule: 1)

  # Passes the window limiter (waiting as each refusal says), recording the
  # wall-clock times just before and after the check that passed: e2e:window
  # holds "before after" pairs (every process runs on this one machine's clock).
  class WindowJob
    include Deckhand::Job

    def perform
      before = Time.now.to_f
      WINDOW.within_limit { E2E.call("RPUSH", "e2e:window", "#{before} #{Time.now.to_f}") }
    rescue Deckhand::Limiter::OverLimit => e
      sleep e.retry_after
      retry
    end
  end

  # Over the limit of a limiter whose one slot someone else holds.
  class FullJob
    include Deckhand::Job

    def perform = FULL.within_limit { E2E.call("RPUSH", "e2e:full", jid) }
  end

  # Runs in a throttled queue, or not: records the queue's running count.
  class QueueJob
    include Deckhand::Job

    def perform(seconds)
      Ledger.inside(deckhand_payload["queue"], jid) { sleep seconds if seconds.positive? }
    end
  end
end
