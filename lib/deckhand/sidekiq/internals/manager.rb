# frozen_string_literal: true

require_relative "server_internal"

module Sidekiq
  # Sidekiq's processor pool, named in drop-in mode only so that code
  # requiring "sidekiq/manager" loads: Deckhand supervises its own threads
  # (a capsule's concurrency is its thread count).
  #
  #   Sidekiq::Manager.new(capsule)   # => Deckhand::DropIn::Unsupported
  class Manager
    extend Deckhand::DropIn::ServerInternal

    unsupported "Deckhand's server starts and supervises its own processor threads (one per unit of a capsule's " \
      "concurrency) and replaces any that dies"
  end
end
