# frozen_string_literal: true

require_relative "component"
require_relative "lot"
require_relative "unit_of_work"
require_relative "idle_waiters"
require_relative "lost_fetches"
require_relative "pace"

module Deckhand
  module Server
    # Keeps one capsule's processors fed. Each round trip to Redis acknowledges
    # the jobs settled since the last one and takes as many new jobs as the
    # capsule can start soon (its free threads plus what Pace allows ahead),
    # moving them atomically into the process's in-flight record as one lot per
    # queue (store/scripts/fetch.lua). A round trip goes out when the jobs
    # waiting to start run below half of what may wait, so acknowledgements
    # travel in batches. When the queues run dry, idle waiters block inside
    # Redis so a new job starts within milliseconds of its push; the fetcher
    # still looks by itself every IDLE_POLL seconds, so a waiter that died
    # cannot leave the capsule asleep.
    #
    # Processors call #take for work and #done once a job's outcome is settled.
    class Fetcher < Component
      MAX_UNREPORTED = 1_000
      IDLE_POLL = 2.0

      # outstanding: jobs taken from Redis and not yet settled (running or
      # waiting to start).
      attr_reader :capsule, :outstanding

      def initialize(capsule, store:, identity:, sequence:, suspects:, logger:, prefetch: 1.0, window: 0.01, on_fatal: nil)
        super("fetch-#{capsule.name}", logger: logger, on_fatal: on_fatal)
        @capsule = capsule
        @queues = capsule.queues
        @index = @queues.each_with_index.to_h
        @sequence = sequence
        @suspects = suspects
        @fetch = Store::Scripts::Fetch.new(store, identity: identity, queues: @queues)
        @requeue = Store::Scripts::Requeue.new(store, identity: identity, queues: @queues)
        @pace = Pace.new(concurrency: capsule.concurrency, prefetch: prefetch, window: window)
        @ready = Thread::Queue.new
        @lock = Mutex.new
        @wake = ConditionVariable.new
        @reports = {}.compare_by_identity
        @unreported = 0
        @landed = {}
        @outstanding = 0
        @quiet = @quieted = @armed = false
        @armed_at = 0.0
        @paused = []
        @waiters = IdleWaiters.new(capsule, store: store, identity: identity, fetcher: self, logger: logger, on_fatal: on_fatal)
        @lost = LostFetches.new(@requeue, queues: @queues.size, logger: logger)
        @outage = Outage.new(logger, "fetcher of capsule #{capsule.name}")
      end

      def start
        super
        @waiters.start
        self
      end

      # The next job for a processor; nil once the capsule is stopping.
      def take = @ready.pop

      # A processor settled a job: its outcome is in Redis (a failure's record
      # was written with its mark) or it succeeded; either way its mark in the
      # lot reaches Redis on the next round trip.
      def done(unit)
        @lock.synchronize do
          lot = unit.lot
          next unless lot.settle(unit.position)
          @reports[lot] = true
          @unreported += 1
          @outstanding -= 1
          @pace.completed
          @wake.signal
        end
      end

      # An idle waiter moved a job of queue `index` into its landing list.
      def landed(index)
        @lock.synchronize do
          @landed[index] = true
          @wake.signal
        end
      end

      # Queues paused from the dashboard or API (the heartbeat reads them): their
      # jobs wait in place until resumed.
      def paused=(names)
        paused = (@queues & names).map { |q| @index[q] }
        @lock.synchronize do
          return if paused == @paused
          (@paused - paused).each { |i| @landed[i] = true } # a resumed queue's landing list may hold a job
          @paused = paused
          @armed = false
          @wake.signal
        end
      end

      # Stop taking jobs. The fetch loop hands back those fetched but not
      # started once any round trip under way has landed.
      def quiet
        @lock.synchronize do
          @quiet = true
          @wake.signal
        end
        @waiters.stop
      end

      def stop
        quiet
        super
      end

      # After #stop: waits for the loop, hands back what is still buffered and
      # releases idle processors. Acknowledgements arriving later go out with
      # #flush_acks.
      def finish(timeout = nil)
        join(timeout)
        @waiters.join
        hand_back_buffered
        @ready.close
      end

      # One round trip with the acknowledgements still due (at shutdown).
      def flush_acks
        lots = @lock.synchronize { take_reports }
        acks = lots.flat_map(&:report)
        @fetch.call(limit: 0, last_lot: @sequence.reserve(0), sources: [], acks: acks) unless acks.empty?
      rescue Deckhand::RedisError => e
        @logger.warn("could not acknowledge settled jobs (#{e.message}); they stay in-flight and run again")
      end

      private

      def wake = @lock.synchronize { @wake.signal }

      def run
        until stopping?
          lots, want, landed = next_round
          break if lots.nil?
          round(lots, want, landed)
        end
      end

      def round(lots, want, landed)
        reserved = nil
        acks = lots.flat_map(&:report)
        @lost.reclaim if @lost.due?
        if want.zero?
          @fetch.call(limit: 0, last_lot: @sequence.reserve(0), sources: [], acks: acks) unless acks.empty?
        else
          sources = sources(landed)
          reserved = [@sequence.reserve(sources.size), sources.size]
          started = now
          takes = @fetch.call(limit: want, last_lot: reserved[0], sources: sources, acks: acks)
          @pace.round_trip(now - started)
          reserved = nil
          deliver(takes, want)
        end
        @outage.over
        hand_back_buffered if @quiet
      rescue Deckhand::RedisError => e
        @lost.add(*reserved) if reserved # its reply may be lost, not its work
        restore(lots, landed)
        pause(@outage.failed(e))
      end

      # Waits until there is something worth a round trip: room for more jobs
      # that Redis may have (queues not known empty, a waiter landed one, or
      # the idle poll is due) once the jobs waiting to start run low; or, when
      # idle or quiet, settled jobs to acknowledge.
      def next_round
        @lock.synchronize do
          loop do
            return nil if stopping?
            if @quiet && !@quieted
              @quieted = true
              return [take_reports, 0, []]
            end
            ahead = @pace.ahead
            want = @quiet ? 0 : @capsule.concurrency + ahead - @outstanding
            polled = @armed && now - @armed_at >= IDLE_POLL
            if want.positive? && (!@armed || !@landed.empty? || polled) && @ready.size <= ahead / 2
              landed = @landed.keys
              @landed.clear
              @armed = false
              return [take_reports, want, landed]
            end
            acks_due = !@reports.empty? && (@armed || @quiet || @unreported >= MAX_UNREPORTED)
            return [take_reports, 0, []] if acks_due || @lost.due?
            @wake.wait(@lock, wait_time)
          end
        end
      end

      def wait_time
        times = [@lost.wait_time]
        times << [IDLE_POLL - (now - @armed_at), 0.001].max if @armed && !@quiet
        times.compact.min
      end

      def take_reports
        lots = @reports.keys
        @reports.clear
        @unreported = 0
        lots
      end

      # Landing lists that received a job first (their jobs were pushed
      # before the rest of the queue's), then the queues in fetch order.
      def sources(landed)
        paused = @paused
        order = @capsule.fetch_order.map { |q| @index[q] } - paused
        (landed - paused).map { |i| [i, :landing] } + order.map { |i| [i, :queue] }
      end

      def deliver(takes, want)
        units = []
        takes.each do |take|
          queue = @queues[take.queue]
          @suspects.observe(queue, take.version)
          lot = Lot.new(queue, take.queue, take.lot, take.payloads.size)
          take.payloads.each_with_index { |payload, i| units << UnitOfWork.new(lot, i, payload, false) }
        end
      rescue Deckhand::RedisError
        @lost.lots(takes.map { |take| [take.queue, take.lot] }) # taken, but not safely handed out
        raise
      else
        @lock.synchronize { @outstanding += units.size }
        units.each { |unit| @ready << unit }
        arm_waiters if units.size < want && !@quiet
      end

      def arm_waiters
        paused = @lock.synchronize do
          @armed = true
          @armed_at = now
          @paused
        end
        @waiters.arm(except: paused)
      end

      def restore(lots, landed)
        @lock.synchronize do
          lots.each do |lot|
            lot.unreport
            @reports[lot] = true
          end
          landed.each { |i| @landed[i] = true }
        end
      end

      def pause(seconds)
        @lock.synchronize { @wake.wait(@lock, seconds) unless stopping? }
      end

      # Jobs fetched but not started when the capsule went quiet go back to the
      # front of their queues, for other processes to run, with any a waiter
      # landed just before it stopped.
      def hand_back_buffered
        units = drain_ready
        @requeue.some(units.map { |u| [u.lot.index, u.lot.id, u.position] })
        units.each { |unit| done(unit) }
      rescue Deckhand::RedisError => e
        @logger.warn("could not hand back #{units.size} unstarted jobs (#{e.message}); they stay in-flight")
      end

      def drain_ready
        units = []
        loop { units << @ready.pop(true) }
      rescue ThreadError # empty
        units
      end

      def now = ::Process.clock_gettime(::Process::CLOCK_MONOTONIC)
    end
  end
end
