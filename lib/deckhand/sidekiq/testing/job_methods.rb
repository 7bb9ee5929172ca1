# frozen_string_literal: true

module Deckhand
  module DropIn
    # Sidekiq's testing class methods that Deckhand's testing (jobs, drain,
    # perform_one, clear) does not already give every job class.
    #
    #   HardJob.queue                              # => "default"
    #   HardJob.execute_job(HardJob.new, [1, 2])   # perform, no middleware
    #   HardJob.process_job(HardJob.jobs.first)    # through the testing middleware
    module TestingJobMethods
      def queue = get_sidekiq_options["queue"]

      def execute_job(job, args) = job.perform(*args)

      def process_job(payload) = Deckhand::Testing::Runner.perform(payload, Deckhand::Testing.server_middleware)
    end
  end
end
