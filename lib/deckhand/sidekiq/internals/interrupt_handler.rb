# frozen_string_literal: true

require_relative "server_internal"

module Sidekiq
  module Job
    # Sidekiq's server middleware that re-enqueues an interrupted iterable
    # job, named in drop-in mode only so that code requiring it loads:
    # Deckhand's server resumes an interrupted iterable job itself.
    #
    #   Sidekiq::Job::InterruptHandler.new   # => Deckhand::DropIn::Unsupported
    class InterruptHandler
      extend Deckhand::DropIn::ServerInternal

      unsupported "Deckhand's server puts an interrupted iterable job back in the schedule by itself (docs/iterable.md); " \
        "it needs no middleware"
    end
  end
end
