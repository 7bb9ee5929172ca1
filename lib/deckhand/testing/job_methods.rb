# frozen_string_literal: true

module Deckhand
  module Testing
    # Added to every job class by `require "deckhand/testing"`.
    #
    #   WelcomeEmailJob.jobs          # the collected jobs of this class
    #   WelcomeEmailJob.perform_one   # runs the oldest
    #   WelcomeEmailJob.drain         # runs them all, and those they push
    #   WelcomeEmailJob.clear
    module JobMethods
      # The jobs of this class collected in fake mode, oldest first.
      #
      #   HardJob.perform_async(1)
      #   HardJob.jobs.last["args"]   # => [1]
      def jobs = Testing.queues.for(name)

      # Forgets the collected jobs of this class.
      def clear = Testing.queues.clear(name)

      # Runs this class's collected jobs, oldest first, until none is left.
      # Returns how many ran.
      def drain
        count = 0
        while (job = Testing.queues.shift(name))
          Runner.perform(job, Testing.server_middleware)
          count += 1
        end
        count
      end

      # Runs the oldest collected job of this class; raises when there is none.
      def perform_one
        job = Testing.queues.shift(name) or raise EmptyQueue, "no #{name} job to perform: none was pushed in fake mode (or all ran)"
        Runner.perform(job, Testing.server_middleware)
      end
    end

    # perform_one found nothing to run.
    class EmptyQueue < Deckhand::Error; end
  end
end
