# frozen_string_literal: true

require "deckhand/limiter"
require_relative "jobs"
require_relative "setup"

module Torture
  module Faults
    # Holds a slot of a concurrent limiter for 10 ms, then succeeds. The
    # stream pushes three at a time against two slots, so some go over the
    # limit and wait in the schedule (the limiter's reschedule, 50 ms later
    # per time over, 0.5 s at most); a limiter key of the wrong type fails
    # the attempt, retried 0.2 s later (at once, a job would spend its
    # retries within the fault: each attempt fails in a few milliseconds).
    # Its success is written after the slot is given back, so a release
    # that Redis refused runs the job again, not twice to its end. That slot
    # stays taken until its lock expires (1 s): the jobs over the limit
    # meanwhile must not run out of reschedules (20, about 8 s) first.
    class LimitedJob
      include Deckhand::Job

      deckhand_options retry: 25
      deckhand_retry_in { 0.2 }

      LIMITER = Deckhand::Limiter.concurrent(Setup::LIMITER, 2, wait_timeout: 0, lock_timeout: 1,
        backoff: ->(overrated, _job) { [0.05 * overrated, 0.5].min })

      def perform(_n)
        LIMITER.within_limit { sleep 0.01 }
        overrated = deckhand_payload["overrated"]
        Books.count("over_limit", overrated) if overrated.is_a?(Integer)
        Books.succeeded(jid)
      end
    end

    # The periodic entry's job (Setup::TICK, every second): notes its tick,
    # so that a tick enqueued twice shows.
    class TickJob
      include Deckhand::Job

      def perform
        Books.tick(deckhand_payload["periodic_at"], jid)
        Books.succeeded(jid)
      end
    end
  end
end
