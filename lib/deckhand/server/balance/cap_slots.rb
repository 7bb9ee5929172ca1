# frozen_string_literal: true

module Deckhand
  module Server
    module Balance
      # Fetch::ThrottleSlots as an auto-balanced capsule's fetch planner sees
      # them: a capped queue with a backlog counts as throttled, so the idle
      # waiters leave it to fetches (CappedBuffer#fetched_only: a blocking
      # wait would take jobs one by one, or past what it may hold), and a
      # capped job that settled makes a fetch due at once, as a throttle's
      # freed slot does, so a capped queue keeps its threads busy while the
      # capsule's other queues are idle.
      #
      #   slots = CapSlots.new(Fetch::ThrottleSlots.new(throttles, queues), buffer)
      #   slots.throttled   # => throttled queue indexes and the capped ones left to fetches
      class CapSlots
        def initialize(slots, buffer)
          @slots = slots
          @buffer = buffer
        end

        def throttled = @slots.throttled | @buffer.fetched_only

        def due?(now) = @slots.due?(now) || @buffer.capped_freed?

        def args(ledger) = @slots.args(ledger)

        def restore(args, ledger) = @slots.restore(args, ledger)

        def held_back(wait_ms, now) = @slots.held_back(wait_ms, now)

        def freed(now) = @slots.freed(now)

        def wait(now) = @slots.wait(now)
      end
    end
  end
end
