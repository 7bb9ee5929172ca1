# frozen_string_literal: true

require_relative "idle_waiter"
require_relative "landing_watch"

module Deckhand
  module Server
    module Fetch
      module Idle
        # One capsule's idle waiters, one per queue and one per priority
        # level of a queue (docs/priority.md: Redis blocks a move on one list
        # only), and the landing lists they fill: a level's waiter lands its
        # jobs in its queue's landing list. A level's waiter is made when the
        # heartbeat first reads the level (#levels=) and armed with the
        # others at the capsule's next short fetch.
        #
        #   waiters = IdleWaiters.new(capsule, store:, identity:, fetcher:, logger:)
        #   waiters.start
        #   waiters.levels = {"default" => [-5]} # a waiter on the list of default's level -5 too
        #   waiters.arm(except: [1])   # the capsule found its queues empty; queue 1 is paused
        #   waiters.stop && waiters.join
        class IdleWaiters
          # watch: the process's Server::Fetch::Idle::LandingWatch, shared by its capsules'
          # waiters (two capsules may wait on the same queue).
          # covered: whether processors wait on a queue (by index) themselves
          # (Fetch::Idle::ProcessorWaits#covered?), told to the waiters on
          # the queues' own lists.
          def initialize(capsule, store:, identity:, fetcher:, logger:, on_fatal: nil, watch: Fetch::Idle::LandingWatch.new, covered: nil)
            @queues = capsule.queues
            @build = lambda do |queue, index, level|
              Fetch::Idle::IdleWaiter.new(queue, index, store: store, identity: identity, fetcher: fetcher, logger: logger,
                on_fatal: on_fatal, watch: watch, level: level, covered: level ? nil : covered)
            end
            @waiters = @queues.each_with_index.map { |queue, index| @build.call(queue, index, nil) }
            @levels = {} # [queue index, level] => its waiter
            @lock = Mutex.new
            @state = :new
          end

          def start
            @lock.synchronize do
              @state = :started
              all.each(&:start)
            end
          end

          # The priority levels of the capsule's queues ({queue name => [level,
          # ...]}): a waiter for each level not waited on yet, started when
          # the others are.
          def levels=(by_queue)
            @lock.synchronize do
              return if @state == :stopped
              @queues.each_with_index do |queue, index|
                by_queue.fetch(queue, []).each do |level|
                  next if @levels.key?([index, level])
                  waiter = @levels[[index, level]] = @build.call(queue, index, level)
                  waiter.start if @state == :started
                end
              end
            end
          end

          # except: indexes of the queues not to wait on (paused); covered:
          # those a processor waits on itself (Fetch::Idle::ProcessorWaits),
          # whose waiter on the queue's own list stays unarmed (a level's
          # list has no processor waiting on it).
          def arm(except:, covered: [])
            all.each do |waiter|
              next if except.include?(waiter.index) || (waiter.level.nil? && covered.include?(waiter.index))
              waiter.arm
            end
          end

          # The waiter on queue `index`'s own list, when the last processor
          # waiting on the queue took a job.
          def arm_one(index) = @waiters[index].arm

          # indexes: the queues paused; a wait already blocked in Redis ends
          # within IdleWaiter::TIMEOUT.
          def disarm(indexes) = all.each { |waiter| waiter.disarm if indexes.include?(waiter.index) }

          def stop
            @lock.synchronize { @state = :stopped }
            all.each(&:stop)
          end

          def join = all.each(&:join)

          private

          def all = @lock.owned? ? @waiters + @levels.values : @lock.synchronize { @waiters + @levels.values }
        end
      end
    end
  end
end
