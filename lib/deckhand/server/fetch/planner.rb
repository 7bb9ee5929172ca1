# frozen_string_literal: true

module Deckhand
  module Server
    module Fetch
      # What one capsule's fetcher thread and its processors share, under one
      # lock: the jobs outstanding, whether the idle waiters are armed, the
      # paused queues, the quiet flag, and through them the ledger's news and
      # the throttle slots. From that it plans the next round trip: when it
      # goes out, who makes it, what news it carries, how many jobs it asks
      # for.
      #
      # Who makes which round trip, and why, is the Fetcher's header; one is
      # under way at a time (Ledger#in_flight?).
      #
      #   planner = Fetch::Planner.new(concurrency: 5, ledger: ledger, slots: slots, pace: pace, ready: buffer, lost: lost)
      #   due, want = planner.next_round { stopping? }  # the loop: waits until a round trip is worth it
      #   due, want = planner.settled(unit, marked: false, unlock: nil) # a processor: nil, or its round trip to make
      #   due, want = planner.settled_all(units, unlocks) # a chunk's successes: the same, once for them all
      #   planner.delivered(units.size)                 # what a fetch brought
      #   planner.sent(due, ok: true)                   # it is over: the next may go
      class Planner # :nodoc:
        IDLE_POLL = 2.0

        # outstanding: jobs taken from Redis and not yet settled (running or
        # waiting to start).
        attr_reader :outstanding

        def initialize(concurrency:, ledger:, slots:, pace:, ready:, lost:)
          @concurrency = concurrency
          @ledger = ledger
          @slots = slots
          @pace = pace
          @ready = ready
          @lost = lost
          @lock = Mutex.new
          @wake = ConditionVariable.new
          @outstanding = 0
          @room = 0
          @quiet = @quieted = @armed = @failing = false
          @armed_at = 0.0
          @paused = []
        end

        def quiet? = @quiet

        # A round trip is under way.
        def in_flight? = @ledger.in_flight?

        def wake = @lock.synchronize { @wake.signal }

        # A processor settled a job: [due, want] when it makes the next round
        # trip itself (the news is late; a fetch of `want` jobs goes with it
        # when one is due, else 0), else nil (the loop is told).
        def settled(unit, marked:, unlock:)
          @lock.synchronize do
            at = now
            after_settled(1, at, !unit.lot.landing?) if @ledger.settle(unit, marked: marked, unlock: unlock, at: at)
          end
        end

        # A chunk's successes (`unlocks[i]`: `units[i]`'s), each settled as
        # #settled settles it, with one wake or round trip for them all.
        def settled_all(units, unlocks)
          @lock.synchronize do
            at = now
            count, lots = @ledger.settle_all(units, unlocks, at: at)
            after_settled(count, at, lots.positive?) if count.positive?
          end
        end

        # An idle waiter handed a job over: the waiters are spent, unless
        # (`spent: false`) a processor still waits on the queue in Redis.
        def landed(spent: true)
          @lock.synchronize do
            @outstanding += 1
            @armed = false if spent
          end
        end

        # Chunks (Fetch::Gather) being gathered or run want `delta` more jobs
        # (fewer, when negative) than their threads alone would start.
        def room(delta)
          @lock.synchronize do
            @room += delta
            @wake.signal if delta.positive?
          end
        end

        # A fetch brought `count` jobs.
        def delivered(count) = @lock.synchronize { @outstanding += count }

        def paused = @lock.synchronize { @paused }

        # Indexes of the paused queues; a change wakes the loop.
        def paused=(paused)
          @lock.synchronize do
            return if paused == @paused
            @paused = paused
            @armed = false
            @wake.signal
          end
        end

        def quiet!
          @lock.synchronize do
            @quiet = true
            @wake.signal
          end
        end

        # The idle waiters are armed (since `at`); returns the indexes of the
        # queues they leave alone.
        def arm(at = now)
          @lock.synchronize do
            @armed = true
            @armed_at = at
            @paused | @slots.throttled # a throttled queue is looked at by fetches only
          end
        end

        # The news still due at shutdown, once a round trip under way is over
        # (a lot's news arrives in order).
        def last_news
          @lock.synchronize do
            deadline = now + 1.0
            @wake.wait(@lock, deadline - now) while @ledger.in_flight? && now < deadline
            @ledger.take
          end
        end

        # The round trip that took `due` is over (arrived or restored);
        # `ok`: Redis answered it, so processors may make round trips again
        # after a failure.
        def sent(due, ok: false)
          @lock.synchronize do
            @ledger.arrived(due)
            @failing = false if ok
            @wake.broadcast
          end
        end

        # A processor's round trip failed: until one of the loop's gets
        # through (it retries, pausing as Redis failures call for),
        # processors leave round trips to the loop.
        def failed
          @lock.synchronize do
            @failing = true
            @wake.signal
          end
        end

        # A round trip failed: its news and throttle slots are due again.
        def restore(due, throttles)
          @lock.synchronize do
            @slots.restore(throttles, @ledger)
            @ledger.restore(due, at: now)
          end
        end

        # The throttles' arguments of the next round trip (ThrottleSlots#args).
        def throttle_args = @lock.synchronize { @slots.args(@ledger) }

        # The takes of a throttled fetch; remembers when to look again when a
        # throttle held jobs back (`wait_ms`).
        def held_back(takes, wait_ms)
          @lock.synchronize { @slots.held_back(wait_ms, now) }
          takes
        end

        # Waits `seconds` (after a Redis failure) unless the block says the
        # fetcher is stopping; a wake ends it early.
        def pause(seconds)
          @lock.synchronize { @wake.wait(@lock, seconds) unless yield }
        end

        # Waits until there is something worth a round trip: room for more jobs
        # that Redis may have (queues not known empty, or the idle poll is due)
        # once the jobs waiting to start run low; or, when idle or quiet,
        # settled jobs to acknowledge. Returns [the ledger's due, jobs wanted],
        # or nil once the block says the fetcher is stopping.
        def next_round
          @lock.synchronize do
            loop do
              return nil if yield
              if @ledger.in_flight? # a processor's round trip with the news: this one waits its turn
                @wake.wait(@lock)
                next
              end
              if @quiet && !@quieted
                @quieted = true
                return [@ledger.take, 0]
              end
              ahead = @pace.ahead
              want = fetch_want(ahead)
              polled = @armed && (now - @armed_at >= IDLE_POLL || @slots.due?(now))
              return fetch(want) if want.positive? && (!@armed || polled)
              acks_due = @ledger.news? && (@armed || @quiet || @ledger.overdue? || @ledger.late?(now))
              return [@ledger.take, 0] if acks_due || @lost.due?
              @wake.wait(@lock, wait_time)
            end
          end
        end

        private

        # `count` jobs settled at `at` (`freed`: some held throttle slots): as #settled.
        def after_settled(count, at, freed)
          @slots.freed(at) if freed
          @outstanding -= count
          @pace.completed(count)
          round = (own_round(at) unless @ledger.in_flight? || @quiet || @failing)
          @wake.signal unless round
          round
        end

        # A processor's round trip, or nil: late news (the loop sends an idle
        # capsule's at once), with a fetch when one is due.
        def own_round(at)
          return if @armed || !(@ledger.overdue? || @ledger.late?(at))
          want = fetch_want(@pace.ahead)
          want.positive? ? fetch(want) : [@ledger.take, 0]
        end

        # Jobs a fetch should ask for now, or 0: room beyond the jobs outstanding
        # (jobs held past their queue's cap, auto-balance, leave the threads to
        # the others; a chunk's members take one thread), once the jobs waiting
        # to start ran down to half of what may wait.
        def fetch_want(ahead)
          return 0 if @quiet || @ready.size > ahead / 2
          @concurrency + ahead - @outstanding + @ready.held + @room
        end

        def fetch(want)
          @pace.starved = !@armed && @ready.waiting.positive? # threads ran dry waiting for this fetch
          @armed = false
          [@ledger.take, want]
        end

        def wait_time
          times = [@lost.wait_time, @ledger.wait(now)]
          times.push([IDLE_POLL - (now - @armed_at), 0.001].max, @slots.wait(now)) if @armed && !@quiet
          times.compact.min
        end

        def now = Monotonic.now
      end
    end
  end
end
