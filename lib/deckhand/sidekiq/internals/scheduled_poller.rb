# frozen_string_literal: true

require_relative "server_internal"
require_relative "scheduled_enq"
require "deckhand/server"

module Sidekiq
  module Scheduled
    # Sidekiq's scheduler loop in drop-in mode. A Deckhand server runs its own
    # scheduler (Deckhand::Server::Scheduler); this adapter runs one poll of
    # it on demand, for code that calls `enqueue`: due entries of the schedule
    # and retry sets move to their queues in one atomic step each. Client
    # middleware is not run again: it ran when the job was first pushed.
    #
    #   poller = Sidekiq::Scheduled::Poller.new(Sidekiq.default_configuration)
    #   poller.enqueue      # due jobs are now in their queues
    #   poller.start        # => Deckhand::DropIn::Unsupported (the server polls by itself)
    class Poller
      def initialize(config = Sidekiq.default_configuration)
        @config = Deckhand::DropIn::ServerInternal.config_of(config)
        @done = false
      end

      # Moves the jobs due now; nothing once terminated.
      def enqueue
        return if @done
        scheduler.enqueue_due
        nil
      end

      def terminate
        @done = true
      end

      def start
        raise Deckhand::DropIn::Unsupported.new("Sidekiq::Scheduled::Poller#start",
          "a Deckhand server polls the schedule and retry sets by itself (scheduler_interval); call #enqueue to move due jobs now")
      end

      private

      def scheduler
        @scheduler ||= Deckhand::Server::Scheduler.new(config: @config, store: @config.store, process_count: -> { 1 })
      end
    end
  end
end
