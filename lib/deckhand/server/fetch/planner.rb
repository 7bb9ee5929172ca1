# frozen_string_literal: true

module Deckhand
  module Server
    module Fetch
      # What one capsule's fetcher thread and its processors share, under one
      # lock: the jobs outstanding, whether the idle waiters are armed, the
      # paused queues, the quiet flag, and through them the ledger's news and
      # the throttle slots. From that it plans the loop's next round trip:
      # when it goes out, what news it carries, how many jobs it asks for.
      #
      #   planner = Fetch::Planner.new(concurrency: 5, ledger: ledger, slots: slots, pace: pace, ready: buffer, lost: lost)
      #   due, want = planner.next_round { stopping? }  # waits until a round trip is worth it
      #   planner.delivered(units.size)                 # what it brought
      #   planner.sent(due)                             # it is over: the next may carry news
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
          @quiet = @quieted = @armed = false
          @armed_at = 0.0
          @paused = []
        end

        def quiet? = @quiet

        # A round trip carrying news is under way.
        def in_flight? = @ledger.in_flight?

        def wake = @lock.synchronize { @wake.signal }

        # A processor settled a job. Returns [due, throttles] when that
        # processor should send the news itself (the oldest unsent news is
        # late and no round trip carrying news is under way), else nil.
        def settled(unit, marked:, unlock:)
          @lock.synchronize do
            at = now
            next unless @ledger.settle(unit, marked: marked, unlock: unlock, at: at)
            @slots.freed(at) unless unit.lot.landing?
            @outstanding -= 1
            @pace.completed
            @wake.signal
            [@ledger.take, @slots.args(@ledger)] if !@ledger.in_flight? && !@quiet && @ledger.late?(at)
          end
        end

        # An idle waiter handed a job over: the waiters are spent.
        def landed
          @lock.synchronize do
            @outstanding += 1
            @armed = false
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

        # The news still due at shutdown, once a processor's round trip with
        # news is over (a lot's news arrives in order).
        def last_news
          @lock.synchronize do
            deadline = now + 1.0
            @wake.wait(@lock, deadline - now) while @ledger.in_flight? && now < deadline
            @ledger.take
          end
        end

        # The round trip that took `due` is over (arrived or restored).
        def sent(due)
          @lock.synchronize do
            @ledger.arrived(due)
            @wake.broadcast
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
              # Jobs held past their queue's cap (auto-balance) leave the threads to the others.
              want = @quiet ? 0 : @concurrency + ahead - @outstanding + @ready.held
              polled = @armed && (now - @armed_at >= IDLE_POLL || @slots.due?(now))
              if want.positive? && (!@armed || polled) && @ready.size <= ahead / 2
                @pace.starved = !@armed && @ready.waiting.positive? # threads ran dry waiting for this fetch
                @armed = false
                return [@ledger.take, want]
              end
              acks_due = @ledger.news? && (@armed || @quiet || @ledger.overdue? || @ledger.late?(now))
              return [@ledger.take, 0] if acks_due || @lost.due?
              @wake.wait(@lock, wait_time)
            end
          end
        end

        private

        def wait_time
          times = [@lost.wait_time]
          times << @ledger.wait(now)
          if @armed && !@quiet
            times << [IDLE_POLL - (now - @armed_at), 0.001].max
            times << @slots.wait(now)
          end
          times.compact.min
        end

        def now = Monotonic.now
      end
    end
  end
end
