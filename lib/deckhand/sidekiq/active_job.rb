# frozen_string_literal: true

require "active_job/queue_adapters/deckhand_adapter"

# Active Job in drop-in mode: `config.active_job.queue_adapter = :sidekiq`
# resolves to Deckhand's adapter (Rails' own Sidekiq adapter would activate
# the sidekiq gem), and the Active Job jobs Sidekiq's adapters queued
# (class Sidekiq::ActiveJob::Wrapper, or Rails' SidekiqAdapter::JobWrapper)
# run on Deckhand as they are, for a fleet switching one process at a time.
module ActiveJob
  module QueueAdapters
    unless const_defined?(:SidekiqAdapter, false) && !autoload?(:SidekiqAdapter)
      const_set(:SidekiqAdapter, DeckhandAdapter)
    end
  end
end

module Sidekiq
  # Sidekiq 7's name for the Active Job wrapper, in job payloads.
  module ActiveJob
    Wrapper = ::ActiveJob::QueueAdapters::DeckhandAdapter::JobWrapper
  end
end
