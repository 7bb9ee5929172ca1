# frozen_string_literal: true

module Deckhand
  class Workflow
    # Builds the jobs of steps as a push with the workflow's configuration
    # would, with the class's options, `set(...)`'s, the configuration's
    # client middleware and encryption, through Client.collecting: nothing
    # reaches Redis. A step's job waits in its workflow until it is
    # released, so it may not be scheduled.
    #
    #   JobCapture.new(config).call(ParsePartJob, [[7, 0], [7, 1]])   # => [job Hash, job Hash]
    class JobCapture
      def initialize(config)
        @config = config
        @jobs = []
      end

      # `job`: a job class, or what `set` returns. One job per args Array.
      def call(job, args_list)
        unless job.respond_to?(:perform_bulk)
          raise ArgumentError, "a workflow step is a job class (or MyJob.set(...)), got #{job.inspect}"
        end
        setter = job.is_a?(Job::Setter) ? job : job.set({})
        Client.collecting(self) { setter.perform_bulk_through(Client.new(config: @config), args_list) }
        if @jobs.size != args_list.size
          raise ArgumentError, "#{job}: a client middleware stopped the push of a workflow step; a workflow's steps are all pushed or none"
        end
        @jobs
      end

      # Client::Scopes#collecting's hand-over.
      def collect(jobs, ats)
        if ats&.any?
          raise ArgumentError, "#{jobs.first["class"]}: a workflow step runs once the steps it waits for ended; it cannot be scheduled " \
            "(perform_in, perform_at, \"at\"): schedule from the step before it instead"
        end
        @jobs.concat(jobs)
        nil
      end
    end
  end
end
