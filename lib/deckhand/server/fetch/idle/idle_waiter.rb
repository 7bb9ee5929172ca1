# frozen_string_literal: true

module Deckhand
  module Server
    module Fetch
      module Idle
        # Blocks inside Redis on one queue while its capsule has found every queue
        # empty: BLMOVE wakes the moment a job is pushed and moves it, in the same
        # step, into this process's landing list, which is part of its in-flight
        # record, and the reply carries the job itself: the fetcher hands it to a
        # thread at once, one round trip from push to start. The queue's recovery
        # count version is read in the same round trip, so a recovered job is
        # known as a suspect before it starts.
        #
        # One waiter per queue (and per priority level of a queue, `level`:
        # it waits on the level's list, docs/priority.md), each on its own
        # connection, because Redis can block a move on one source list only. A wait whose connection dropped may
        # have lost the reply of a move Redis made: the waiter then looks at its
        # landing list (Server::Fetch::Idle::LandingWatch) and hands over what no thread got.
        class IdleWaiter < Component
          TIMEOUT = 2
          # What #wait_until_armed returns for a look without a wait.
          LOOK = :look

          attr_reader :queue, :index, :level

          # covered: says whether processors wait on the queue themselves
          # (Fetch::Idle::ProcessorWaits#covered?): a wait that ends with no
          # job then leaves the queue to them.
          def initialize(queue, index, store:, identity:, fetcher:, logger:, on_fatal: nil, watch: Fetch::Idle::LandingWatch.new, level: nil, covered: nil)
            super(level ? "wait-#{queue}~r#{level}" : "wait-#{queue}", logger: logger, on_fatal: on_fatal)
            @queue = queue
            @level = level
            @index = index
            @identity = identity
            @store = store
            @fetcher = fetcher
            @watch = watch
            @covered = covered
            @lock = Mutex.new
            @wake = ConditionVariable.new
            @armed = false
            @generation = 0
            @outage = Outage.new(logger, "idle wait on queue #{queue}")
          end

          def arm
            @lock.synchronize do
              @armed = true
              @generation += 1
              @wake.signal
            end
          end

          # Waits no more once the wait under way ends (its queue was paused, or
          # is being moved to another shard: Store::Tags::QueueMove).
          def disarm = @lock.synchronize { @armed = false }

          # Stops at once, even inside a wait. A move Redis made just before is
          # safe: the landing list is handed back with the rest of the in-flight
          # record.
          def stop
            super
            thread&.kill
            self
          end

          private

          def wake = @lock.synchronize { @wake.signal }

          # A wait that brought nothing: processors wait on the queue in
          # Redis now, and a push goes to whichever waited longest, so this
          # thread (which would hand the job over to another) waits no more.
          def step_aside(generation)
            return unless @covered&.call(@index)
            @lock.synchronize { @armed = false if @generation == generation }
          end

          # The keys are named at each use: a queue moved to another shard
          # (Store::Tags::QueueMove) is waited on under its new tag.
          def source = @level ? @store.layout.priority(@queue, @level) : @store.layout.queue(@queue)

          def recoveries = @store.layout.recoveries(@queue)

          def landing = @store.layout.landing(@identity, @queue)

          def run
            conn = nil
            while (generation = wait_until_armed)
              conn ||= @store.dedicated
              begin
                moved, version = look_back(conn)
                moved, version = @watch.waiting(landing) { wait(conn) } if moved.nil? && generation != LOOK
                @outage.over
              rescue Deckhand::RedisError => e
                conn.close
                conn = nil
                @lock.synchronize { @wake.wait(@lock, @outage.failed(e)) unless stopping? }
                next
              end
              # Disarmed only if the fetcher has not armed it again meanwhile.
              next step_aside(generation) unless moved
              @lock.synchronize { @armed = false if @generation == generation }
              Array(moved).each { |payload| hand_over(payload, version) }
            end
          ensure
            conn&.close
          end

          # One BLMOVE: [the payload moved or nil, the recovery count version].
          # A connection error may have lost the reply of a move Redis made: the
          # landing list is looked at before the next wait.
          def wait(conn)
            moved, version = conn.wait_move(source, landing, TIMEOUT, hash: recoveries, field: Store::Inflight::Recoveries::VERSION)
            @watch.held(landing, moved) if moved
            # The client reconnected and sent the BLMOVE again by itself (the
            # cluster client does): the first one's move may be in the list.
            @watch.lost(landing) if conn.reconnected?
            [moved, version]
          rescue Deckhand::ConnectionError
            @watch.lost(landing)
            raise
          end

          # When a look at the landing list is due: [the payloads in it no thread
          # was given, or nil when none, the recovery count version].
          def look_back(conn)
            version = nil
            found = @watch.look(landing) do
              payloads, version = conn.read_list(landing, hash: recoveries, field: Store::Inflight::Recoveries::VERSION)
              payloads
            end
            return [nil, nil] if found.nil? || found.empty?
            @logger.warn("#{found.size} job(s) moved into the landing list of queue #{@queue} while the idle wait's " \
              "connection dropped (its reply lost): handed to a thread now")
            [found, version]
          end

          # The job is safe in the landing list; it goes to a thread once its
          # queue's recovery counts are known (rarely a Redis read).
          def hand_over(payload, version)
            @fetcher.landed(@index, payload, version)
            @outage.over
          rescue Deckhand::RedisError => e
            @lock.synchronize { @wake.wait(@lock, @outage.failed(e)) unless stopping? }
            retry unless stopping?
          end

          # The arming's generation once armed; LOOK when not armed but a look
          # at the landing list is due; nil once stopping.
          def wait_until_armed
            @lock.synchronize do
              until @armed || stopping?
                due = @watch.look_in(landing)
                return LOOK if due&.zero?
                @wake.wait(@lock, due)
              end
              stopping? ? nil : @generation
            end
          end
        end
      end
    end
  end
end
