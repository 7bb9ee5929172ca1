# frozen_string_literal: true

require_relative "server_internal"
require_relative "processor_state"

module Sidekiq
  # Sidekiq's processor thread, named in drop-in mode only so that code
  # requiring "sidekiq/processor" loads. Deckhand's server runs jobs on its
  # own processors, through the same server middleware chain.
  #
  #   Sidekiq::Processor.new(capsule)   # => Deckhand::DropIn::Unsupported
  class Processor
    extend Deckhand::DropIn::ServerInternal

    unsupported "Deckhand's server runs jobs on its own processor threads, through config.server_middleware; " \
      "run a job with its middleware in a test with Sidekiq::Testing.inline! (or Sidekiq::Testing.server_middleware)"
  end
end
