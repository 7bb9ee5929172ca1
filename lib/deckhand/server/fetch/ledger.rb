# frozen_string_literal: true

module Deckhand
  module Server
    module Fetch
      # The acknowledgement ledger of one capsule: which fetched jobs are
      # settled, and what Redis has not been told yet. The only writer of that
      # state; the fetcher calls it under its own lock.
      #
      # Processors settle jobs (#settle); the fetch loop takes what is due as
      # one Due for its next round trip (#take), and puts it back when the
      # round trip failed (#restore), so nothing is acknowledged twice or never.
      #
      #   ledger = Ledger.new(queues: 2)
      #   ledger.settle(unit, marked: false, unlock: nil)   # => true: news for Redis
      #   due = ledger.take                                 # acks, landed jobs, unique locks
      #   ledger.restore(due)                               # the round trip failed
      class Ledger
        MAX_UNREPORTED = 1_000

        # What is due in one round trip: the lots' reports (Lot#report),
        # the lots themselves, [queue index, payload] of landed jobs that
        # succeeded, and [lock key, jid, TTL ms, queue index] of the unique
        # locks their success releases.
        Due = Struct.new(:acks, :lots, :landed, :unlocks) do
          def empty? = acks.empty? && landed.empty?
        end

        def initialize(queues:)
          @reports = {}.compare_by_identity
          @landed = []
          @unlocks = []
          @unreported = 0
          @released = Array.new(queues, 0) # jobs settled per queue: throttle slots to give back
        end

        # A processor settled `unit`: it succeeded, or (marked) a script wrote
        # its outcome and its mark. False when the unit was settled already.
        def settle(unit, marked:, unlock:)
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
          true
        end

        # Something settled that Redis has not been told.
        def news? = !@reports.empty? || !@landed.empty?

        # So much is unreported that it should go without waiting for a fetch.
        def overdue? = @unreported >= MAX_UNREPORTED

        def take
          lots = @reports.keys
          @reports.clear
          @unreported = 0
          due = Due.new(lots.map(&:report), lots, @landed, @unlocks)
          @landed = []
          @unlocks = []
          due
        end

        # What was due did not reach Redis: it goes with the next round trip.
        def restore(due)
          due.lots.each do |lot|
            lot.unreport
            @reports[lot] = true
          end
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
