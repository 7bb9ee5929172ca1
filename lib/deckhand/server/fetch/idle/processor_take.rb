# frozen_string_literal: true

require_relative "processor_waits"

module Deckhand
  module Server
    module Fetch
      module Idle
        # One wait of an idle processor's own in Redis (Fetch::Idle::ProcessorWait),
        # when Fetch::Idle::ProcessorWaits gives it a queue, and the job it
        # brings made the processor's. Nothing else is woken before the job
        # starts, unless no processor waits on the queue any more: then the
        # queue's idle waiter thread takes up the wait, and the fetcher looks
        # for more.
        #
        #   take = ProcessorTake.new(waits, landing:, planner:, suspects:, waiters:, logger:)
        #   take.take(wait, buffer)   # => a UnitOfWork, or nil (take from the buffer)
        class ProcessorTake
          # Seconds between two reads of a queue's recovery counts while Redis fails.
          RETRY = 0.5

          # landing: the capsule's Fetch::Idle::LandingLot of each queue.
          def initialize(waits, landing:, planner:, suspects:, waiters:, logger:)
            @waits = waits
            @queues = landing.map(&:queue)
            @landing = landing
            @planner = planner
            @suspects = suspects
            @waiters = waiters
            @logger = logger
          end

          # While `ready` (the capsule's buffer) is empty: the job a wait
          # brought, or nil when the processor may not wait (it takes from
          # the buffer). A wait that brought nothing is made again.
          def take(wait, ready)
            while ready.empty?
              unit = call(wait)
              return unit unless unit == false
            end
          end

          # The job the wait brought; false when none came in the wait's time
          # (the processor may wait again); nil when it may not wait (the
          # capsule went quiet, no queue is idle, the wait failed): the
          # processor takes from the buffer.
          def call(wait)
            index = @waits.claim(wait) or return nil
            moved = failed = nil
            begin
              @waits.named(wait, wait.id)
              moved, version = wait.call(@queues[index])
            rescue Deckhand::RedisError => e
              failed = e
            ensure
              last = @waits.release(wait, index, moved: moved, failed: !failed.nil? && !@planner.quiet?)
            end
            if last
              @waiters.arm_one(index)
              @planner.wake
            end
            if failed
              @logger.warn("an idle processor's wait on queue #{@queues[index]} failed (#{failed.message}); it takes from the buffer")
              return nil
            end
            moved ? landed(index, moved, version, spent: last) : false
          end

          private

          # The wait moved `payload` into the queue's landing list: the job is
          # the processor's once the queue's recovery counts are known (rarely
          # a Redis read, retried while Redis fails; at quiet the job stays in
          # the landing list, handed back with the in-flight record).
          def landed(index, payload, version, spent:)
            begin
              @suspects.observe(@queues[index], version)
            rescue Deckhand::RedisError => e
              return nil if @planner.quiet?
              @logger.warn("could not read the recovery counts of queue #{@queues[index]} (#{e.message}); trying again")
              sleep RETRY
              retry
            end
            @planner.landed(spent: spent)
            Fetch::UnitOfWork.new(@landing[index], 0, payload, false)
          end
        end
      end
    end
  end
end
