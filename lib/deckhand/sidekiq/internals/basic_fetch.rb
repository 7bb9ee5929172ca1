# frozen_string_literal: true

require_relative "server_internal"

module Sidekiq
  # Sidekiq's fetcher, named in drop-in mode only so that code requiring
  # "sidekiq/fetch" loads: Deckhand fetches with its own reliable, batched
  # fetch, which cannot be replaced (`fetch_class` raises too).
  #
  #   Sidekiq::BasicFetch.new(capsule)   # => Deckhand::DropIn::Unsupported
  class BasicFetch
    extend Deckhand::DropIn::ServerInternal

    unsupported "Deckhand's server fetches jobs itself (reliably, several per round trip, docs/internals.md); " \
      "push jobs with the client and read queues with Sidekiq::Queue"

    TIMEOUT = 2

    # A fetched job of Sidekiq's fetcher: Deckhand's server has its own.
    class UnitOfWork
      extend Deckhand::DropIn::ServerInternal

      unsupported "a fetched job lives inside Deckhand's server; run a job in a test with " \
        "Sidekiq::Testing.inline! or MyJob.perform_inline"
    end
  end
end
