# frozen_string_literal: true

require_relative "../../component"
require_relative "lot"
require_relative "unit_of_work"
require_relative "idle/waits"
require_relative "lost_fetches"
require_relative "pace"
require_relative "ledger"
require_relative "throttle_slots"
require_relative "buffer"
require_relative "gather"
require_relative "sources"
require_relative "planner"
require_relative "round_trip"
require_relative "../balance/capped_buffer"
require_relative "../balance/cap_slots"

module Deckhand
  module Server
    module Fetch
      # Keeps one capsule's processors fed. Each round trip to Redis acknowledges
      # the jobs settled since the last one and takes as many new jobs as the
      # capsule can start soon (its free threads plus what Pace allows ahead),
      # moving them atomically into the process's in-flight record as one lot per
      # queue (store/scripts/fetch/fetch.lua). A round trip goes out when the jobs
      # waiting to start run below half of what may wait, so acknowledgements
      # travel in batches; and they never wait longer than half the fetch
      # window: the processor that settles a job once the oldest unsent news
      # is that old makes the round trip itself (it holds the global lock
      # then, where waking the fetcher thread could take a time slice), and
      # fetches with it when a fetch is due (Fetch::Planner); the loop makes
      # the others (idle, quiet, after a failure) and sends acknowledgements
      # when no more settle. One round trip is under way at a time, so a lot's
      # news reaches Redis in order. When the queues run dry, idle processors
      # or idle waiter threads block inside Redis for a push (Fetch::Idle::Waits),
      # one round trip from push to start; the fetcher still looks every
      # Fetch::Planner::IDLE_POLL seconds, in case a waiter died.
      #
      # Processors call #take for work and #done once a job's outcome is settled
      # (#done_all for a chunk's successes). Fetch::Ledger keeps who settled what
      # and what Redis was not told; Fetch::Buffer the jobs waiting to start;
      # Fetch::Sources what a fetch asks for and brings; Fetch::ThrottleSlots the
      # throttles; Pace how far ahead; Fetch::Planner what they share and when to
      # go; Fetch::RoundTrip makes a round trip. This class is the loop.
      #
      #   fetcher = Fetcher.new(capsule, store: store, identity: identity, sequence: sequence, suspects: suspects, logger: logger)
      #   fetcher.start
      #   unit = fetcher.take   # in a processor: the next job, nil once stopping
      #   fetcher.done(unit)    # its success reaches Redis with the next round trip
      class Fetcher < Component
        attr_reader :capsule, :balance # balance: an auto-balanced capsule's Balance::CappedBuffer, or nil
        attr_reader :gather # where a chunk's runner takes more jobs of its class (Fetch::Gather)

        def initialize(capsule, store:, identity:, sequence:, suspects:, logger:, prefetch: 1.0, window: 0.01, on_fatal: nil,
          throttles: nil, landings: Fetch::Idle::LandingWatch.new, balanced: false)
          super("fetch-#{capsule.name}", logger: logger, on_fatal: on_fatal)
          @capsule = capsule
          @queues = capsule.queues
          @index = @queues.each_with_index.to_h
          @suspects = suspects
          @sources = Fetch::Sources.new(capsule, sequence: sequence, suspects: suspects)
          @fetch = store.layout.fetch_script.new(store, identity: identity, queues: @queues, lost: method(:lost_source))
          @requeue = Store::Scripts::Requeue.new(store, identity: identity, queues: @queues)
          @pace = Fetch::Pace.new(concurrency: capsule.concurrency, prefetch: prefetch, window: window)
          @balance = balanced ? Balance::CappedBuffer.new(@requeue, queues: @queues, logger: logger) : nil
          @ready = @balance || Fetch::Buffer.new(@requeue, logger: logger, interleave: !capsule.weights.nil?)
          @lost = Fetch::LostFetches.new(@requeue, logger: logger)
          @outage = Outage.new(logger, "fetcher of capsule #{capsule.name}")
          # News waits at most half the window: its average wait when it rode only with fetches.
          ledger = Fetch::Ledger.new(queues: @queues.size, lag: window / 2.0)
          slots = Fetch::ThrottleSlots.new(throttles, @queues).then { |s| @balance ? Balance::CapSlots.new(s, @balance) : s }
          @planner = Fetch::Planner.new(concurrency: capsule.concurrency, ledger: ledger, slots: slots, pace: @pace, ready: @ready, lost: @lost)
          @gather = Fetch::Gather.new(@balance ? nil : @ready, @planner)
          @trip = Fetch::RoundTrip.new(fetch: @fetch, sources: @sources, planner: @planner, pace: @pace, lost: @lost,
            ready: @ready, balance: @balance, on_short: -> { arm_waiters })
          @waits = Fetch::Idle::Waits.new(capsule, store: store, identity: identity, fetcher: self, planner: @planner, suspects: suspects,
            logger: logger, on_fatal: on_fatal, watch: landings, balanced: balanced)
        end

        # Jobs taken from Redis and not yet settled (running or waiting to start).
        def outstanding = @planner.outstanding

        def start
          super
          @waits.start
          self
        end

        # A processor's own wait in Redis to pass to #take, or nil (Fetch::Idle::ProcessorWaits.for).
        def processor_wait = @waits.processor_wait

        # The next job for a processor; nil once the capsule is stopping. The
        # fetcher may be waiting for the buffer to drain before its next fetch.
        # With its own `wait`, a processor finding the buffer empty may block
        # in Redis on an idle queue instead (Fetch::Idle::ProcessorTake).
        def take(wait = nil)
          unit = @waits.take(wait, @ready)
          return unit if unit
          unit = @ready.pop
          @planner.wake if @ready.empty?
          @waits.took(unit)
          unit
        end

        # A processor settled a job: it succeeded, or (marked: true) a script
        # wrote its outcome; the news (and the unique lock to release, `unlock`:
        # [key, jid, TTL ms]) goes with the next round trip, made by the caller when due.
        def done(unit, marked: false, unlock: nil)
          @balance&.settled(unit) # first: a capped queue's freed room makes the fetch the planner plans
          due, want = @planner.settled(unit, marked: marked, unlock: unlock)
          own_round(due, want) if due
        end

        # A chunk's successes, each as #done's (`unlocks[i]`: `units[i]`'s), told at once.
        def done_all(units, unlocks)
          units.each { |unit| @balance.settled(unit) } if @balance
          due, want = @planner.settled_all(units, unlocks)
          own_round(due, want) if due
        end

        # An idle waiter moved `payload` into queue `index`'s landing list, and
        # read the queue's recovery count version with it: it goes to a thread
        # at once, and the next round trip looks for more. Raises a
        # Deckhand::RedisError when the counts must be read and Redis fails (the
        # waiter retries; the job is safe in the landing list meanwhile).
        def landed(index, payload, version)
          @suspects.observe(@queues[index], version)
          # No signal: the thread that takes the job wakes the fetcher (#take).
          @planner.landed
          @ready.push(Fetch::UnitOfWork.new(@waits.landing[index], 0, payload, false))
        end

        # Queues paused from the dashboard or API (the heartbeat reads them): their
        # jobs wait in place until resumed. Pausing a partitioned queue pauses every
        # partition; a partition alone is paused while it moves (Store::Tags::QueueMove).
        def paused=(names)
          @planner.paused = @queues.select { |q| names.include?(q) || names.include?(Store::Layout::PartitionNames.base(q)) }.map { |q| @index[q] }
          @waits.disarm(@planner.paused)
        end

        # The queues' priority levels, as the heartbeat reads them (Fetch::Sources#levels=).
        def levels=(by_queue)
          @waits.levels = @sources.levels = by_queue
        end

        # Stop taking jobs. The fetch loop hands back those fetched but not
        # started once any round trip under way has landed. The waits in Redis
        # (processors', then idle waiters') end first: a wait still blocked
        # would take a job handed back into this quiet process's landing list.
        def quiet
          @waits.quiet
          @planner.quiet!
        end

        def stop
          quiet
          super
        end

        # After #stop: waits for the loop, hands back what is still buffered and
        # releases idle processors (later acknowledgements: #flush_acks).
        def finish(timeout = nil)
          join(timeout)
          @waits.join
          hand_back_buffered
          @ready.close
        end

        # One round trip with the acknowledgements still due (at shutdown).
        def flush_acks
          due = @planner.last_news
          @trip.acknowledge(due) unless due.empty?
        rescue Deckhand::RedisError => e
          @logger.warn("could not acknowledge settled jobs (#{e.message}); they stay in-flight and run again")
        ensure
          @planner.sent(due) if due
        end

        private

        def run
          until stopping?
            due, want = next_round
            break if due.nil?
            round(due, want)
          end
        end

        # due: the ledger's acknowledgements due; want: jobs to take (0: none).
        def round(due, want)
          reclaim_lost(due)
          @trip.call(due, want) # the news in `due`, and a fetch of up to `want` jobs when want > 0
          @planner.sent(due, ok: true)
          @outage.over
          hand_back_buffered if @planner.quiet?
        rescue Exception => e # rubocop:disable Lint/RescueException -- the news went back to the ledger (RoundTrip#call)
          raise unless e.is_a?(Deckhand::RedisError) # the component logs it and starts the loop again
          @planner.sent(due)
          @planner.pause(@outage.failed(e)) { stopping? }
        ensure
          # Whatever ended this round, the next may go; a processor's round
          # trip begun since stays under way.
          @planner.sent(due)
        end

        # A processor's round trip (Fetch::Planner#settled). When it fails,
        # its news is back in the ledger (RoundTrip#call) and the loop makes the next
        # round trips, pausing as Redis failures call for; a bug is logged,
        # and the processor goes on to its next job.
        def own_round(due, want)
          @trip.call(due, want) # the news in `due`, and a fetch of up to `want` jobs when want > 0
          @planner.sent(due, ok: true)
        rescue => e
          unless e.is_a?(Deckhand::RedisError)
            @logger.error("a round trip of the fetcher of capsule #{@capsule.name} failed (#{e.class}: #{e.message}); " \
              "its fetch loop takes over\n#{e.backtrace&.join("\n")}")
          end
          @planner.failed
        ensure
          @planner.sent(due)
        end

        # The lots of fetches whose reply was lost go back once Redis answers;
        # when it does not, `due` goes back to the ledger.
        def reclaim_lost(due)
          @lost.reclaim if @lost.due?
        rescue Exception # rubocop:disable Lint/RescueException -- nothing taken from the ledger may be dropped
          @planner.restore(due, nil)
          raise
        end

        # Waits for the next round trip worth making (Fetch::Planner#next_round).
        def next_round = @planner.next_round { stopping? }

        # Cluster mode: a later queue's call of a fetch failed (FetchByQueue);
        # what came before stands, its lot is handed back once Redis answers.
        def lost_source(pairs, error)
          @lost.lots(pairs)
          @logger.warn("fetch from queue #{@queues[pairs[0][0]]} failed (#{error.message}); " \
            "whatever it took goes back to the queue once Redis answers")
        end

        def arm_waiters = @waits.arm(@planner.arm)

        # Jobs fetched but not started when the capsule went quiet go back to the
        # front of their queues, for other processes to run.
        def hand_back_buffered = @ready.hand_back { |unit| done(unit, marked: true) }
      end
    end
  end
end
