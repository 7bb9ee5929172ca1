# frozen_string_literal: true

require_relative "server_internal"

module Sidekiq
  module Scheduled
    # Sidekiq's enqueuer behind the poller, named only: Deckhand's scheduler
    # script does its work.
    #
    #   Sidekiq::Scheduled::Enq.new(config)   # => Deckhand::DropIn::Unsupported
    class Enq
      extend Deckhand::DropIn::ServerInternal

      unsupported "Deckhand's scheduler moves due jobs in one Lua step (Sidekiq::Scheduled::Poller#enqueue runs it once)"
    end
  end
end
