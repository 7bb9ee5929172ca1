# frozen_string_literal: true

require "active_job/queue_adapters/deckhand_adapter"
require_relative "job_options"
require_relative "rails_reloader" if defined?(::Rails::VERSION)

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
    # Subclasses named as Sidekiq's, so that Sidekiq::Testing finds the
    # collected jobs under the class name they carry
    # (`SidekiqAdapter::JobWrapper.jobs`) and Rails names the adapter
    # "sidekiq". const_set replaces Rails' autoload without loading it.
    unless const_defined?(:SidekiqAdapter, false) && !autoload?(:SidekiqAdapter)
      const_set(:SidekiqAdapter, Class.new(DeckhandAdapter))
      SidekiqAdapter.const_set(:JobWrapper, Class.new(DeckhandAdapter::JobWrapper))
    end
    DeckhandAdapter.job_class_name = DeckhandAdapter::SIDEKIQ_NAMES.first
  end
end

ActiveJob::Base.include(Sidekiq::Job::Options) unless ActiveJob::Base.respond_to?(:sidekiq_options)

module Sidekiq
  # Sidekiq 7.3's and 8's name for the Active Job wrapper, in job payloads.
  module ActiveJob
    Wrapper = ::ActiveJob::QueueAdapters::SidekiqAdapter::JobWrapper
  end
end
