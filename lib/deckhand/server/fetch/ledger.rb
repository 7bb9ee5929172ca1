# frozen_string_literal: true

module Deckhand
  module Server
    module Fetch
      # The acknowledgement ledger of one capsule: which fetched jobs are
      # settled, what Redis has not been told yet, since when, and which
      # round trip is under way. The only writer of that state; the fetcher
      # calls it under its own lock.
      #
      # Processors settle jobs (#settle); whoever makes the next round trip
      # (the fetch loop, or a processor, Fetch::Planner#settled) takes the
      # news as one Due (#take), says when that round trip is over
      # (#arrived), and puts the news back when it failed (#restore), so
      # nothing is acknowledged twice or never. One round trip at a time: a
      # lot's news arrives in order.
      #
      #   ledger = Ledger.new(queues: 2, lag: 0.005)
      #   ledger.settle(unit, marked: false, unlock: nil, at: now)   # => true: news for Redis
      #   ledger.settle_all(units, unlocks, at: now)                 # => [2, 2]: settled, of them from lots
      #   ledger.late?(now + 0.006)                                  # => true: send it now
      #   due = ledger.take                                          # acks, landed jobs, unique locks
      #   ledger.restore(due, at: now)                               # the round trip failed
      #   ledger.arrived(due)
      class Ledger
        MAX_UNREPORTED = 1_000

        # What is due in one round trip: the lots' reports (Lot#report),
        # the lots themselves, [queue index, payload] of landed jobs that
        # succeeded, and [lock key, jid, TTL ms, queue index] of the unique
        # locks their success releases.
        Due = Struct.new(:acks, :lots, :landed, :unlocks) do
          def empty? = acks.empty? && landed.empty?
        end

        # lag: seconds the oldest news may wait for a round trip.
        def initialize(queues:, lag: 0.005)
          @lag = lag
          @since = nil # when the oldest news not yet taken arrived
          @in_flight = nil # the Due of the round trip under way
          @reports = {}.compare_by_identity
          @landed = []
          @unlocks = []
          @unreported = 0
          @released = Array.new(queues, 0) # jobs settled per queue: throttle slots to give back
        end

        # A processor settled `unit` at monotonic time `at`: it succeeded, or
        # (marked) a script wrote its outcome and its mark. False when the
        # unit was settled already.
        def settle(unit, marked:, unlock:, at: nil)
          lot = unit.lot
          unit.settled = true
          return false unless lot.settle(unit.position, marked: marked)
          @unlocks << [*unlock, lot.index] if unlock # the queue routes it in cluster mode
          if lot.landing?
            @landed << [lot.index, unit.payload] unless marked
          else
            @reports[lot] = true
            @released[lot.index] += 1
          end
          @unreported += 1
          @since ||= at if at && news?
          true
        end

        # A chunk's members that succeeded, each settled at `at` as #settle
        # settles it (`unlocks[i]`: `units[i]`'s). Returns how many were not
        # settled already, and how many of those came from a lot (not a
        # landing list): their throttle slots come free.
        def settle_all(units, unlocks, at:)
          count = lots = 0
          units.each_with_index do |unit, i|
            next unless settle(unit, marked: false, unlock: unlocks[i], at: at)
            count += 1
            lots += 1 unless unit.lot.landing?
          end
          [count, lots]
        end

        # Something settled that Redis has not been told.
        def news? = !@reports.empty? || !@landed.empty?

        # So much is unreported that it should go without waiting for a fetch.
        def overdue? = @unreported >= MAX_UNREPORTED

        # The oldest news has waited `lag` by monotonic time `at`.
        def late?(at) = !@since.nil? && at - @since >= @lag

        # Seconds from `at` until the news is late, or nil without news.
        def wait(at) = @since && [@since + @lag - at, 0.001].max

        # A round trip is under way (its news taken, not yet #arrived).
        def in_flight? = !@in_flight.nil?

        # The round trip that took `due` is over. One that took news since
        # is left under way: an end reported twice, or late, must not let a
        # third round trip overtake it.
        def arrived(due) = (@in_flight = nil if @in_flight.equal?(due))

        def take
          @since = nil
          lots = @reports.keys
          @reports.clear
          @unreported = 0
          due = Due.new(lots.map(&:report), lots, @landed, @unlocks)
          @landed = []
          @unlocks = []
          @in_flight = due
        end

        # What was due did not reach Redis: it goes with the next round trip,
        # late from `at` on.
        def restore(due, at: nil)
          @since ||= at if at && !due.empty?
          due.lots.each { |lot| @reports[lot] = true }
          @landed.concat(due.landed)
          @unlocks.concat(due.unlocks)
        end

        # The jobs settled per queue index since the last call (throttle
        # slots to give back), counted from zero again.
        def take_released
          released = @released.dup
          @released.fill(0)
          released
        end

        # Slots taken with #take_released that did not reach Redis.
        def restore_released(index, count) = @released[index] += count
      end
    end
  end
end
