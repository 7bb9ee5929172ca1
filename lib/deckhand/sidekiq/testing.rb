# frozen_string_literal: true

require "deckhand/testing"

module Sidekiq
  # Sidekiq::Testing in drop-in mode, on Deckhand::Testing: requiring
  # "sidekiq/testing" turns the fake mode on.
  #
  #   require "sidekiq/testing"
  #   HardJob.perform_async(1)
  #   assert_equal 1, HardJob.jobs.size
  #   HardJob.drain
  #   Sidekiq::Testing.inline! { HardJob.perform_async(2) }   # runs at once
  #   Sidekiq::Worker.clear_all
  module Testing
    class << self
      def fake!(&) = Deckhand::Testing.fake!(&)

      def inline!(&) = Deckhand::Testing.inline!(&)

      def disable!(&) = Deckhand::Testing.disable!(&)

      def fake? = Deckhand::Testing.fake?

      def inline? = Deckhand::Testing.inline?

      def disabled? = Deckhand::Testing.disabled?

      def enabled? = !disabled?

      # Middleware run around jobs that drain, perform_one and inline mode run.
      def server_middleware
        chain = Deckhand::DropIn::MiddlewareChain.new(Deckhand::Testing.server_middleware)
        yield chain if block_given?
        chain
      end
    end
  end

  # Sidekiq::Queues["default"]: the jobs collected in fake mode, per queue.
  module Queues
    class << self
      def [](queue) = Deckhand::Testing.jobs.select { |job| job["queue"] == queue.to_s }

      def jobs_by_queue = Deckhand::Testing.jobs.group_by { |job| job["queue"] }

      def clear_all = Deckhand::Testing.clear_all
    end
  end

  # Sidekiq::Job.jobs / Sidekiq::Worker.clear_all / drain_all: every class's.
  module Job
    class << self
      def jobs = Deckhand::Testing.jobs

      def clear_all = Deckhand::Testing.clear_all

      def drain_all = Deckhand::Testing.drain_all
    end
  end
end
