# frozen_string_literal: true

require_relative "../../store/jobs/held_classes"

module Deckhand
  module Server
    module Run
      # Holds a fetched job of a paused class (Run::ClassPause) instead of
      # running it: settle.lua writes it, as it was fetched, to its queue's
      # held set for the class and marks it settled in its lot, in one step
      # (retried while Redis fails, as every outcome: RetryHandler#write).
      # The other jobs of the queue run on; a resume moves the held ones
      # back (Store::Jobs::HeldClasses).
      #
      #   hold = ClassHold.new(pause: stats.class_pause, retries: retries, fetcher: fetcher, store: store, logger: logger)
      #   hold.call(unit, job)   # => true when it held the job, false to run it
      class ClassHold
        def initialize(pause:, retries:, fetcher:, store:, logger:)
          @pause = pause
          @retries = retries
          @fetcher = fetcher
          @store = store
          @logger = logger
        end

        def call(unit, job)
          name = job["wrapped"] || job["class"]
          return false unless @pause.paused?(name)
          at = @store.clock.now
          @retries.write(unit) { |settle| settle.hold(unit.place, name, at: at, payload: unit.payload) }
          @fetcher.done(unit, marked: true)
          @logger.info("#{name} jid=#{job["jid"]} held: its class is paused; it goes back to queue #{unit.queue} on resume") if unit.recorded == :written
          resumed_meanwhile(name, unit.queue)
          true
        end

        private

        # The heartbeat moves held jobs back after it saw a resume: a hold
        # written after that move, decided before it, is moved back here.
        def resumed_meanwhile(name, queue)
          return if @pause.paused?(name)
          Store::Jobs::HeldClasses.release(@store, name, [queue])
        rescue Deckhand::RedisError => e
          @logger.warn("#{name} was resumed while a job of it was held, and moving it back to queue #{queue} failed " \
            "(#{e.message}): pause and resume the class again to move it")
        end
      end
    end
  end
end
