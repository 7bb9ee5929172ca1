# frozen_string_literal: true

require_relative "idle_waiter"

module Deckhand
  module Server
    # One capsule's idle waiters, one per queue, and the landing lists they fill.
    #
    #   waiters = IdleWaiters.new(capsule, store:, identity:, fetcher:, logger:)
    #   waiters.start
    #   waiters.arm(except: ["paused_queue"])   # the capsule found its queues empty
    #   waiters.stop && waiters.join
    class IdleWaiters
      def initialize(capsule, store:, identity:, fetcher:, logger:)
        @identity = identity
        @queues = capsule.queues
        @waiters = @queues.map do |queue|
          IdleWaiter.new(queue, store: store, landing: landing_key(queue), fetcher: fetcher, logger: logger)
        end
      end

      def landing_key(queue) = Store::Keys.landing(@identity, queue)

      def landing_keys = @queues.map { |queue| landing_key(queue) }

      def start = @waiters.each(&:start)

      def arm(except:) = @waiters.each { |waiter| waiter.arm unless except.include?(waiter.queue) }

      def stop = @waiters.each(&:stop)

      def join = @waiters.each(&:join)
    end
  end
end
