# frozen_string_literal: true

require "active_job/queue_adapters/deckhand_adapter"
require_relative "job_options"

# Active Job in drop-in mode, as the sidekiq gem sets it up:
#
# - `config.active_job.queue_adapter = :sidekiq` resolves to Deckhand's
#   adapter (Rails' own Sidekiq adapter would activate the sidekiq gem);
# - jobs are written as Sidekiq 7.3's adapter writes them (class
#   ActiveJob::QueueAdapters::SidekiqAdapter::JobWrapper, "wrapped" the
#   Active Job class), so a Sidekiq process of the same fleet runs them, and
#   the jobs Sidekiq queued run here (the adapter registers both wrapper names);
# - Active Job classes take sidekiq_options, sidekiq_retry_in and
#   sidekiq_retries_exhausted (Sidekiq::Job::Options).
module ActiveJob
  module QueueAdapters
    unless const_defined?(:SidekiqAdapter, false) && !autoload?(:SidekiqAdapter)
      const_set(:SidekiqAdapter, DeckhandAdapter)
    end
    DeckhandAdapter.job_class_name = DeckhandAdapter::SIDEKIQ_NAMES.first
  end
end

ActiveJob::Base.include(Sidekiq::Job::Options) unless ActiveJob::Base.respond_to?(:sidekiq_options)

module Sidekiq
  # Sidekiq 7.3's and 8's name for the Active Job wrapper, in job payloads.
  module ActiveJob
    Wrapper = ::ActiveJob::QueueAdapters::DeckhandAdapter::JobWrapper
  end
end
