# frozen_string_literal: true

module Sidekiq
  module Job
    # Sidekiq's job declarations without the push methods, for Active Job
    # classes: drop-in mode includes it into ActiveJob::Base, as the sidekiq
    # gem does, so an Active Job class may declare Sidekiq's options and retry
    # rules, which Deckhand's adapter and wrapper honour (the queue stays
    # Active Job's queue_as). Applications that include it themselves
    # (`ActiveJob::Base.include Sidekiq::Worker::Options`) get the same.
    #
    #   class ImportJob < ApplicationJob
    #     sidekiq_options retry: 3, backtrace: 10
    #     sidekiq_retry_in { |count, error, job| 60 * (count + 1) }
    #     sidekiq_retries_exhausted { |job, error| Alerts.import_failed(job["jid"]) }
    #   end
    module Options
      def self.included(base)
        base.extend(Deckhand::Job::Declarations)
        base.extend(ClassMethods)
      end

      module ClassMethods
        def sidekiq_options(options = nil)
          return get_sidekiq_options unless options
          deckhand_options(Deckhand::DropIn::UniqueJobsOptions.translate(options.transform_keys(&:to_s)))
        end

        def get_sidekiq_options = deckhand_options

        def sidekiq_retry_in(&) = deckhand_retry_in(&)

        def sidekiq_retries_exhausted(&) = deckhand_retries_exhausted(&)

        def sidekiq_retry_in_block = deckhand_retry_in

        def sidekiq_retries_exhausted_block = deckhand_retries_exhausted
      end
    end
  end
end
