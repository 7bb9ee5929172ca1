# frozen_string_literal: true

require_relative "idle_waiter"
require_relative "landing_watch"

module Deckhand
  module Server
    module Fetch
      module Idle
        # One capsule's idle waiters, one per queue, and the landing lists they fill.
        #
        #   waiters = IdleWaiters.new(capsule, store:, identity:, fetcher:, logger:)
        #   waiters.start
        #   waiters.arm(except: [1])   # the capsule found its queues empty; queue 1 is paused
        #   waiters.stop && waiters.join
        class IdleWaiters
          # watch: the process's Server::Fetch::Idle::LandingWatch, shared by its capsules'
          # waiters (two capsules may wait on the same queue).
          def initialize(capsule, store:, identity:, fetcher:, logger:, on_fatal: nil, watch: Fetch::Idle::LandingWatch.new)
            @waiters = capsule.queues.each_with_index.map do |queue, index|
              Fetch::Idle::IdleWaiter.new(queue, index, store: store, identity: identity,
                fetcher: fetcher, logger: logger, on_fatal: on_fatal, watch: watch)
            end
          end

          def start = @waiters.each(&:start)

          # except: indexes of the queues not to wait on (paused).
          def arm(except:) = @waiters.each_with_index { |waiter, i| waiter.arm unless except.include?(i) }

          # indexes: the queues paused; a wait already blocked in Redis ends
          # within IdleWaiter::TIMEOUT.
          def disarm(indexes) = indexes.each { |i| @waiters[i].disarm }

          def stop = @waiters.each(&:stop)

          def join = @waiters.each(&:join)
        end
      end
    end
  end
end
