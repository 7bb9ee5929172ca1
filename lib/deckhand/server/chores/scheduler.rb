# frozen_string_literal: true

require_relative "../../component"
require_relative "scheduler_pace"
require_relative "due_chain"

module Deckhand
  module Server
    module Chores
      # Moves due jobs from the schedule and retry sets to their queues
      # (store/scripts/sets/schedule.lua: each entry leaves its set and enters its
      # queue in one atomic step). When the process has client middleware,
      # each due job goes through it first, as a push does (DueChain;
      # store/scripts/sets/schedule_given.lua moves what it gives, only
      # while the entry is still in its set); without, none of that is
      # done or paid for. Between polls it sleeps a jittered interval
      # scaled by the number of live processes (SchedulerPace), so the fleet
      # polls Redis about as often as one process would, and wakes early when
      # the next scheduled job is due sooner.
      class Scheduler < Component
        BATCH = 100

        def initialize(config:, store:, process_count:, on_fatal: nil)
          super("scheduler", logger: config.logger, on_fatal: on_fatal)
          @config = config
          queues = config.server_capsules.flat_map(&:queues).uniq
          @script = Store::Scripts::Schedule.new(store, queues: queues, fair: config.fair_queues)
          @chain = DueChain.new(config, @logger)
          @given = Store::Scripts::ScheduleGiven.new(store, queues: queues, fair: config.fair_queues) { |job| @chain.call(job) }
          @dropped = 0
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
          script = @chain.empty? ? @script : @given
          moved, corrupt, earliest, unlisted = script.call(now: now, limit: BATCH, stamp: stamp)
          stopped(script.equal?(@given) ? @given.dropped : [])
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
              next if moved + corrupt + @dropped >= BATCH # more are due right now
              @sleeper.sleep(interval(earliest))
            rescue Deckhand::RedisError => e
              @sleeper.sleep(@outage.failed(e))
            end
          end
        end

        # Jobs a client middleware stopped, their entries removed: gone, as
        # the middleware decided, and said so.
        def stopped(jobs)
          @dropped = jobs.size
          jobs.each { |job| @logger.info("client middleware stopped the due #{job["class"]} #{job["jid"]}; removed from its set") }
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
