# frozen_string_literal: true

require_relative "server_internal"
require_relative "scheduled_enq"
require "deckhand/server"

module Sidekiq
  module Scheduled
    # Sidekiq's scheduler loop in drop-in mode, on Deckhand's scheduler
    # (Deckhand::Server::Chores::Scheduler): `enqueue` runs one poll now, `start`
    # runs it on a thread of its own until `terminate`, as a Deckhand
    # server runs its own. Due entries of the schedule and retry sets move
    # to their queues in one atomic step each, due by the application's
    # clock (Time.now, which a test may move) and stamped as a push of the
    # Sidekiq version is, as Sidekiq's poller does. Client middleware is not
    # run again (it ran when the job was first pushed).
    #
    # Its pace is the server's (Deckhand::Server::Chores::SchedulerPace): the
    # private random_poll_interval and scaled_poll_interval answer what a
    # Deckhand server would wait, from Sidekiq's poll_interval_average and
    # average_scheduled_poll_interval (config[:...]) and the processes
    # registered.
    #
    #   poller = Sidekiq::Scheduled::Poller.new(Sidekiq.default_configuration)
    #   poller.enqueue      # due jobs are now in their queues
    #   poller.start        # and every few seconds from now on
    #   poller.terminate
    class Poller
      def initialize(config = Sidekiq.default_configuration)
        @config = Deckhand::DropIn::ServerInternal.config_of(config)
        @done = false
        @started = false
        @pace = Deckhand::Server::Chores::SchedulerPace.new(@config)
      end

      # The random source of the waits (a seeded Random makes them repeat).
      def rnd=(random)
        @pace.random = random
      end

      # Moves the jobs due now; nothing once terminated.
      def enqueue
        return if @done
        scheduler.enqueue_due(now: Time.now.to_f, stamp: Deckhand::Payload.now(@config.timestamps))
        nil
      end

      def terminate
        @done = true
        return unless @started
        scheduler.stop
        scheduler.join(5)
        nil
      end

      def start
        return if @started || @done
        @started = true
        scheduler.start
        nil
      end

      private

      # A wait before the next poll: half to one and a half of the average.
      def random_poll_interval = @pace.wait(process_count)

      # The average wait when `count` processes share the polling.
      def scaled_poll_interval(count) = @pace.average(count)

      def process_count = Deckhand::Store::Records::ProcessRecord.identities(@config.store).size

      def scheduler
        @scheduler ||= Deckhand::Server::Chores::Scheduler.new(config: @config, store: @config.store, process_count: -> { 1 })
      end
    end
  end
end
