# frozen_string_literal: true

module Deckhand
  class Store
    module Scripts
      # settle.lua: writes a job's outcome (to the retry, schedule or dead set,
      # or nowhere when it is dropped) and marks it settled in its lot, in one
      # atomic step.
      #
      #   settle = Settle.new(store, inflight: "deckhand:inflight:host:1:abc:default")
      #   settle.retry(lot: 42, position: 3, at: Time.now.to_f + 30, payload: json)   # => true
      #   settle.drop(lot: 42, position: 4)
      #
      # Each returns false when the lot was no longer there (another process
      # recovered it, taking this one for dead): the job runs again there.
      class Settle < Script
        lua "settle", uses: ["lot"]

        def initialize(store, inflight:)
          super(store)
          @inflight = inflight
        end

        def retry(lot:, position:, at:, payload:) = outcome(keys::RETRY, lot, position, [score(at), payload])

        def reschedule(lot:, position:, at:, payload:) = outcome(keys::SCHEDULE, lot, position, [score(at), payload])

        # To the dead set, trimmed as Sidekiq trims it: entries older than
        # `timeout` seconds and the oldest beyond `max_jobs` go.
        def bury(lot:, position:, payload:, now:, timeout:, max_jobs:)
          outcome(keys::DEAD, lot, position, [score(now), payload, score(now - timeout), max_jobs])
        end

        def drop(lot:, position:) = run([@inflight], [lot, position]) == 1

        private

        def outcome(set, lot, position, rest) = run([@inflight, set], [lot, position, *rest]) == 1

        # Scores kept to the millisecond, in Ruby's shortest exact form.
        def score(seconds) = seconds.round(3).to_s
      end
    end
  end
end
