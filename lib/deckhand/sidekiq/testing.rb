# frozen_string_literal: true

require "deckhand/testing"
require_relative "testing/job_methods"

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
    # A block form inside another (Sidekiq does not nest test modes).
    class TestModeAlreadySetError < RuntimeError; end

    class << self
      def fake!(&) = switch(:fake!, &)

      def inline!(&) = switch(:inline!, &)

      def disable!(&) = switch(:disable!, &)

      def fake? = Deckhand::Testing.fake?

      def inline? = Deckhand::Testing.inline?

      def disabled? = Deckhand::Testing.disabled?

      def enabled? = !disabled?

      # Middleware run around jobs that drain, perform_one and inline mode run.
      def server_middleware
        chain = (@server_middleware ||= Deckhand::DropIn::MiddlewareChain.new(Deckhand::Testing.server_middleware))
        yield chain if block_given?
        chain
      end

      private

      def switch(mode, &block)
        if block && Thread.current[Deckhand::Testing::THREAD_KEY]
          raise TestModeAlreadySetError, "Nesting test modes is not supported"
        end
        Deckhand::Testing.public_send(mode, &block)
      end
    end
  end

  # Sidekiq's testing modes keep an iterable job's progress in Redis
  # (it-<jid>), where a test that interrupts and resumes one reads it.
  Deckhand::Testing.iterations.keep_in_redis!

  # perform_one found no job to run.
  EmptyQueueError = Deckhand::Testing::EmptyQueue

  # Sidekiq::Queues["default"]: the jobs collected in fake mode, per queue;
  # the same Array each time, kept up to date.
  module Queues
    class << self
      def [](queue) = Deckhand::Testing.queues.queue(queue)

      def jobs_by_queue = Deckhand::Testing.queues.by_queue

      def jobs_by_class = Deckhand::Testing.queues.by_class

      alias_method :jobs_by_worker, :jobs_by_class

      # Forgets the job with this jid.
      def delete_for(jid, queue, _klass)
        job = self[queue].find { |entry| entry["jid"] == jid }
        Deckhand::Testing.queues.remove(job) if job
      end

      def clear_for(_queue, klass) = Deckhand::Testing.queues.clear(klass)

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

    ClassMethods.include(Deckhand::DropIn::TestingJobMethods)
  end
end
