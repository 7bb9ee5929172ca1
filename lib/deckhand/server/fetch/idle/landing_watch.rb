# frozen_string_literal: true

module Deckhand
  module Server
    module Fetch
      module Idle
        # Finds the jobs an idle waiter's BLMOVE moved into a landing list while
        # its reply was lost (the connection dropped after Redis made the move):
        # no thread knows about them, and the reaper never touches a live
        # process, so they would wait in the landing list until the stop.
        #
        # It counts, per landing list, the payloads handed to a thread
        # (#waiting's block reports each move). After a wait failed with a
        # connection error, or ran on a connection its client opened again and
        # sent the BLMOVE on once more (Store::Connection::Dedicated#reconnected?), the next
        # look at the list (#look), made while no wait on it is under way, finds
        # in it what was never handed over: those jobs go to a thread then, once
        # each. A look comes again LATE seconds
        # after the failure, for a move Redis made on the dead connection before
        # it noticed the drop (a Redis slow to read the close). The process's
        # waiters share one watch: two capsules with the same queue wait on the
        # same landing list.
        #
        #   watch = LandingWatch.new
        #   moved = watch.waiting(landing) { conn.wait_move(...).tap { |m, _| watch.held(landing, m) if m } }
        #   watch.lost(landing)                                # the wait failed: its reply may be lost
        #   watch.look(landing) { read the whole list }       # => payloads moved and never handed over, or nil
        class LandingWatch
          # Seconds after a failed wait for the second look: the wait's own
          # timeout, and a second for the drop to reach Redis.
          LATE = Fetch::Idle::IdleWaiter::TIMEOUT + 1.0
          # Payloads counted before a look prunes the ones settled since.
          PRUNE_AT = 1_000

          List = Struct.new(:held, :size, :waits, :looking, :looks_at) # looks_at: [when, ...] still due
          private_constant :List

          def initialize
            @lock = Mutex.new
            @done = ConditionVariable.new
            @lists = Hash.new { |lists, key| lists[key] = List.new(Hash.new(0), 0, 0, false, []) }
          end

          # Runs a wait on the landing list `key`, after any look at it ends.
          def waiting(key)
            counted = false
            @lock.synchronize do
              list = @lists[key]
              @done.wait(@lock) while list.looking
              list.waits += 1
              counted = true
            end
            yield
          ensure
            release(key) { |list| list.waits -= 1 } if counted
          end

          # A wait moved `payload` into the list: it goes to a thread. Call it
          # inside #waiting's block.
          def held(key, payload)
            @lock.synchronize do
              list = @lists[key]
              list.held[payload] += 1
              list.size += 1
            end
          end

          # A wait on the list failed where its reply may have been lost.
          def lost(key)
            at = Monotonic.now
            @lock.synchronize { @lists[key].looks_at.push(at, at + LATE) }
          end

          # Seconds until a look at the list is due (0: now), or nil.
          def look_in(key)
            @lock.synchronize do
              list = @lists[key]
              next 0.0 if list.size >= PRUNE_AT
              list.looks_at.min&.then { |at| [at - Monotonic.now, 0.0].max }
            end
          end

          # When a look is due (once any other look ended): waits for the other
          # waits on the list to end, yields for the list's payloads (LRANGE), and
          # returns those never handed over (now counted as handed over: run
          # them). nil when no look was due; raises what the block raises (the
          # look stays due).
          def look(key)
            mine = @lock.synchronize do
              list = @lists[key]
              @done.wait(@lock) while list.looking # another waiter's look: it may be the one due
              next false unless list.size >= PRUNE_AT || list.looks_at.any? { |at| at <= Monotonic.now }
              list.looking = true
              @done.wait(@lock) while list.waits.positive?
              true
            end
            return nil unless mine
            started = Monotonic.now
            payloads = yield
            @lock.synchronize { compare(@lists[key], payloads, started) }
          ensure
            release(key) { |list| list.looking = false } if mine
          end

          private

          def release(key)
            @lock.synchronize do
              yield @lists[key]
              @done.broadcast
            end
          end

          # What the list holds beyond what was handed over; the count kept to
          # what the list still holds (the rest was settled and left it).
          def compare(list, payloads, started)
            found = []
            payloads.tally.each do |payload, count|
              extra = count - list.held[payload]
              extra.times { found << payload } if extra.positive?
            end
            held = payloads.tally
            list.size = held.values.sum
            list.held = Hash.new(0).merge(held)
            list.looks_at.reject! { |at| at <= started }
            found
          end
        end
      end
    end
  end
end
