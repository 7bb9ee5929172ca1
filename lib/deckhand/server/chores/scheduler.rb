# frozen_string_literal: true

require_relative "../../component"
require_relative "scheduler_pace"

module Deckhand
  module Server
    module Chores
      # Moves due jobs from the schedule and retry sets to their queues
      # (store/scripts/sets/schedule.lua: each entry leaves its set and enters its
      # queue in one atomic step). Between polls it sleeps a jittered interval
      # scaled by the number of live processes (SchedulerPace), so the fleet
      # polls Redis about as often as one process would, and wakes early when
      # the next scheduled job is due sooner.
      class Scheduler < Component
        BATCH = 100

        def initialize(config:, store:, process_count:, on_fatal: nil)
          super("scheduler", logger: config.logger, on_fatal: on_fatal)
          @config = config
          @script = Store::Scripts::Schedule.new(store, queues: config.server_capsules.flat_map(&:queues).uniq, fair: config.fair_queues)
          @listing = store.listing_warning
          @clock = store.clock # due by Redis' clock, whatever this host's says
          @process_count = process_count
          @pace = SchedulerPace.new(config)
          @sleeper = Sleeper.new
          @outage = Outage.new(@logger, "scheduler")
        end

        # Runs one poll; returns [moved, corrupt, earliest due score or nil,
        # whether the set of queue names refused to list their queues]. Due
        # and stamped by the fleet's clock unless told otherwise (drop-in
        # mode's Sidekiq::Scheduled::Poller#enqueue, called by application
        # code, goes by the application's).
        def enqueue_due(now: @clock.now, stamp: Payload.now(@config.timestamps, clock: @clock))
          moved, corrupt, earliest, unlisted = @script.call(now: now, limit: BATCH, stamp: stamp)
          @listing.refused("it holds another type than a set", @logger, what: "due scheduled and retried jobs") if unlisted
          @logger.error("#{corrupt} scheduled entries were not valid jobs; moved to the dead set as they were") if corrupt.positive?
          [moved, corrupt, earliest, unlisted]
        end

        private

        def wake = @sleeper.stop

        def run
          until stopping?
            begin
              moved, corrupt, earliest = enqueue_due
              @outage.over
              next if moved + corrupt >= BATCH # more are due right now
              @sleeper.sleep(interval(earliest))
            rescue Deckhand::RedisError => e
              @sleeper.sleep(@outage.failed(e))
            end
          end
        end

        def interval(earliest)
          wait = @pace.wait(@process_count.call)
          return wait unless earliest
          (earliest - @clock.now).clamp(0.0, wait)
        end
      end
    end
  end
end
