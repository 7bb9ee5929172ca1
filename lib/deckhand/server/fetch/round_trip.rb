# frozen_string_literal: true

require_relative "../../monotonic"

module Deckhand
  module Server
    module Fetch
      # One round trip of a capsule's fetcher: the news the ledger had due
      # and, when jobs are wanted, a fetch of up to that many, delivered to
      # the buffer. Whatever ends it early, the news and the throttle slots
      # it carried go back to the ledger, and a fetch's lots that may have
      # been taken are handed back once Redis answers (LostFetches). The
      # fetcher never lets two overlap (Ledger#in_flight?).
      #
      #   trip = RoundTrip.new(fetch: script, sources: sources, planner: planner, pace: pace, lost: lost,
      #     ready: buffer, balance: nil, on_short: -> { waiters.arm })
      #   trip.call(due, 10)   # acknowledges `due`, takes up to 10 jobs
      #   trip.call(due, 0)    # acknowledges only
      class RoundTrip
        # on_short: called when a fetch brought fewer jobs than wanted and the
        # capsule is not quiet (the queues ran dry: idle waiters take over).
        def initialize(fetch:, sources:, planner:, pace:, lost:, ready:, balance:, on_short:)
          @fetch = fetch
          @sources = sources
          @planner = planner
          @pace = pace
          @lost = lost
          @ready = ready
          @balance = balance
          @on_short = on_short
        end

        def call(due, want)
          sources = throttles = nil
          if want.zero?
            acknowledge(due, throttles = @planner.throttle_args) unless due.empty? # the slots of settled jobs go back with their acknowledgements
          else
            sources = @sources.next(paused: @planner.paused, limit: want)
            sources = @balance.plan(sources, want) if @balance
            started = Monotonic.now
            throttles = @planner.throttle_args
            takes = @fetch.call(limit: want, sources: sources, acks: due.acks, landed: due.landed, unlocks: due.unlocks,
              throttles: throttles)
            takes = @planner.held_back(*takes) if throttles
            @pace.round_trip(Monotonic.now - started)
            fetched = sources
            sources = nil
            deliver(takes, fetched, want)
          end
        rescue Exception # rubocop:disable Lint/RescueException -- nothing taken from the ledger may be dropped
          @lost.lots(sources) if sources # its reply may be lost, not its work
          @planner.restore(due, throttles)
          raise
        end

        # The news in `due` alone (and the throttle slots it gives back).
        def acknowledge(due, throttles = nil)
          @fetch.call(limit: 0, sources: [], acks: due.acks, landed: due.landed, unlocks: due.unlocks, throttles: throttles)
        end

        private

        def deliver(takes, sources, want)
          lots = @sources.lots(takes, sources)
        rescue Deckhand::RedisError
          @lost.lots(takes.map { |take| sources[take.source] }) # taken, but not safely handed out
          raise
        else
          count = lots.sum(&:size)
          @planner.delivered(count)
          @ready.push_lots(lots)
          @on_short.call if count < want && !@planner.quiet?
        end
      end
    end
  end
end
