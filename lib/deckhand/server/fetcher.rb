# frozen_string_literal: true

require_relative "unit_of_work"
require_relative "idle_waiters"
require_relative "suspects"
require_relative "lost_fetches"
require_relative "pace"
require_relative "hand_back"

module Deckhand
  module Server
    # Keeps one capsule's processors fed. Each round trip to Redis acknowledges
    # the jobs finished since the last one and takes as many new jobs as the
    # capsule can start soon (its free threads plus what Pace allows ahead),
    # moving them atomically into the process's in-flight hash
    # (store/scripts/fetch.lua). A round trip goes out when the jobs waiting to
    # start run below half of what may wait, so acknowledgements travel in batches.
    # When the queues run dry, idle waiters block inside Redis so a new job starts
    # within milliseconds of its push, with no polling.
    #
    # Processors call #take for work and #done when a job's outcome is settled.
    class Fetcher
      RETRY_DELAYS = [0.05, 0.1, 0.25, 0.5, 1, 2].freeze

      attr_reader :capsule

      MAX_ACKS = 1_000

      def initialize(capsule, store:, inflight:, identity:, sequence:, logger:, prefetch: 1.0, window: 0.01)
        @capsule = capsule
        @store = store
        @inflight = inflight
        @logger = logger
        @pace = Pace.new(concurrency: capsule.concurrency, prefetch: prefetch, window: window)
        @ready = Thread::Queue.new
        @lock = Mutex.new
        @wake = ConditionVariable.new
        @acks = []
        @landed = {}
        @outstanding = 0
        @sequence = sequence
        @quiet = false
        @quieted = false
        @armed = false
        @stopping = false
        @paused = []
        @waiters = IdleWaiters.new(capsule, store: store, identity: identity, fetcher: self, logger: logger)
        @hand_back = HandBack.new(store: store, inflight: inflight, queues: capsule.queues, landing_keys: landing_keys)
        @suspects = Suspects.for(identity, store: store, logger: logger)
        @lost = LostFetches.new(store: store, inflight: inflight, queues: capsule.queues, logger: logger)
      end

      def start
        @thread = Thread.new do
          Thread.current.name = "deckhand-fetch-#{@capsule.name}"
          run
        end
        @waiters.start
        self
      end

      # The next job for a processor; nil once the capsule is stopping. A job
      # recovered from a crashed process first waits for its turn (Suspects).
      def take
        unit = @ready.pop
        @suspects.enter(unit) if unit && @suspects.suspect?(unit)
        unit
      end

      # A processor settled a job. With ack: true its in-flight entry is deleted
      # on the next round trip; with ack: false the outcome write already did it.
      def done(unit, ack: true)
        @suspects.leave(unit) if @suspects.running?(unit)
        @lock.synchronize do
          @acks << unit.field if ack
          @outstanding -= 1
          @pace.completed
          @wake.signal
        end
      end

      # An idle waiter moved a job into its landing list.
      def landed(queue)
        @lock.synchronize do
          @landed[queue] = true
          @wake.signal
        end
      end

      # Queues paused from the dashboard or API (the heartbeat reads them): their
      # jobs wait in place until resumed.
      def paused=(names)
        paused = @capsule.queues & names
        @lock.synchronize do
          return if paused == @paused
          (@paused - paused).each { |q| @landed[q] = true } # a resumed queue's landing list may hold a job
          @paused = paused
          @armed = false
          @wake.signal
        end
      end

      # Stop taking jobs. The fetch loop hands back those fetched but not started
      # once any round trip under way has landed.
      def quiet
        @lock.synchronize do
          @quiet = true
          @wake.signal
        end
        @waiters.stop
      end

      # Ends the fetch loop, hands back what is still buffered and releases idle
      # processors. Acknowledgements arriving later go out with #flush_acks.
      def stop
        quiet
        @lock.synchronize do
          @stopping = true
          @wake.signal
        end
        @thread&.join
        @waiters.join
        hand_back_buffered
        @ready.close
      end

      def flush_acks
        acks = @lock.synchronize { @acks.slice!(0..) }
        flush(acks)
      rescue Deckhand::RedisError => e
        @logger.warn("could not acknowledge #{acks.size} finished jobs (#{e.message}); they stay in-flight and will run again")
      end

      def landing_keys = @waiters.landing_keys

      private

      def landing_key(queue) = @waiters.landing_key(queue)

      def run
        failures = 0
        until @stopping
          acks, want, landed = next_round
          break if acks.nil?
          begin
            @reserved = nil
            @lost.reclaim if @lost.due?
            count = fetch(acks, want, landed)
            failures = 0
            arm_waiters if want > 0 && count < want && !@quiet
            hand_back_buffered if @quiet
          rescue Deckhand::RedisError => e
            @lost.add(*@reserved) if @reserved # its reply may be lost, not its work
            restore(acks, landed)
            failures = backoff(failures, e)
          end
        end
      rescue => e
        @logger.error("fetcher for capsule #{@capsule.name} died: #{e.class}: #{e.message}")
        raise
      end

      # Waits until there is something worth a round trip: room for more jobs
      # that Redis may have (queues not known empty, or a waiter landed one) once
      # the jobs waiting to start run low; or, when idle or quiet, finished jobs
      # to acknowledge.
      def next_round
        @lock.synchronize do
          loop do
            return nil if @stopping
            if @quiet && !@quieted
              @quieted = true
              return [@acks.slice!(0..), 0, []]
            end
            ahead = @pace.ahead
            want = @quiet ? 0 : @capsule.concurrency + ahead - @outstanding
            fetch = want > 0 && (!@armed || !@landed.empty?) && @ready.size <= ahead / 2
            if fetch || (!@acks.empty? && (@armed || @quiet || @acks.size >= MAX_ACKS))
              return [@acks.slice!(0..), 0, []] unless fetch # acknowledgements only: landed jobs wait for a fetch
              landed = @landed.keys
              @landed = {} unless landed.empty?
              @armed = false
              return [@acks.slice!(0..), want, landed]
            end
            return [@acks.slice!(0..), 0, []] if @lost.due?
            @wake.wait(@lock, @lost.wait_time)
          end
        end
      end

      def fetch(acks, want, landed)
        return flush(acks) if want.zero?
        paused = @paused
        queues = paused.empty? ? @capsule.fetch_order : @capsule.fetch_order - paused
        order = (landed - paused).map { |q| [landing_key(q), q] } + queues.map { |q| [Store::Keys.queue(q), q] }
        keys = [@inflight, *order.map(&:first)]
        @reserved = [@sequence.reserve(want), want]
        argv = [want, @reserved[0], acks.size, *acks, *order.map(&:last)]
        started = ::Process.clock_gettime(::Process::CLOCK_MONOTONIC)
        reply = @store.script(:fetch, keys, argv)
        @pace.round_trip(::Process.clock_gettime(::Process::CLOCK_MONOTONIC) - started)
        units = UnitOfWork.from_reply(reply)
        @lock.synchronize { @outstanding += units.size }
        units.each { |unit| @ready << unit }
        units.size
      end

      def flush(acks)
        @store.call("HDEL", @inflight, *acks) unless acks.empty?
        0
      end

      def arm_waiters
        paused = @lock.synchronize do
          @armed = true
          @paused
        end
        @waiters.arm(except: paused)
      end

      def restore(acks, landed)
        @lock.synchronize do
          @acks.concat(acks)
          landed.each { |q| @landed[q] = true }
        end
      end

      def backoff(failures, error)
        @logger.warn("Redis unreachable from fetcher #{@capsule.name} (#{error.message}); retrying") if failures.zero?
        sleep RETRY_DELAYS[failures] || RETRY_DELAYS.last
        failures + 1
      end

      # Jobs fetched but not started when the capsule went quiet go back to the
      # front of their queues, for other processes to run, with any a waiter
      # landed just before it stopped.
      def hand_back_buffered
        units = drain_ready
        @lock.synchronize { @outstanding -= units.size }
        @hand_back.call(units.map(&:field))
      rescue Deckhand::RedisError => e
        @logger.warn("could not hand back #{units.size} unstarted jobs (#{e.message}); they stay in-flight")
      end

      def drain_ready
        units = []
        loop { units << @ready.pop(true) }
      rescue ThreadError # empty
        units
      end
    end
  end
end
