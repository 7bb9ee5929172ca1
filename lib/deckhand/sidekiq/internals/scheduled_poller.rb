# frozen_string_literal: true

require_relative "server_internal"
require_relative "scheduled_enq"
require "deckhand/server"

module Sidekiq
  module Scheduled
    # Sidekiq's scheduler loop in drop-in mode, on Deckhand's scheduler
    # (Deckhand::Server::Scheduler): `enqueue` runs one poll now, `start`
    # runs it on a thread of its own until `terminate`, as a Deckhand
    # server runs its own. Due entries of the schedule and retry sets move
    # to their queues in one atomic step each; client middleware is not run
    # again (it ran when the job was first pushed). A started poller waits
    # scheduler_interval seconds, jittered, between polls, as one process.
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
      end

      # Moves the jobs due now; nothing once terminated.
      def enqueue
        return if @done
        scheduler.enqueue_due
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

      def scheduler
        @scheduler ||= Deckhand::Server::Scheduler.new(config: @config, store: @config.store, process_count: -> { 1 })
      end
    end
  end
end
