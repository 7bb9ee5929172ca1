# frozen_string_literal: true

require_relative "active_job_steps"

module Deckhand
  class Workflow
    # Builds the jobs of steps as a push with the workflow's configuration
    # would, with the class's options, `set(...)`'s, the configuration's
    # client middleware and encryption, through Client.collecting: nothing
    # reaches Redis. An Active Job class (or what its `set` returns) is
    # built by its own perform_later, through Deckhand's adapter, with its
    # enqueue callbacks. A step's job waits in its workflow until it is
    # released, so it may not be scheduled, hold a unique lock or join a
    # batch.
    #
    #   JobCapture.new(config).call(ParsePartJob, [[7, 0], [7, 1]])   # => [job Hash, job Hash]
    class JobCapture
      def initialize(config)
        @config = config
        @jobs = []
      end

      # A batch's jobs block collects its pushes: a step added or pushed
      # there would not be counted by the batch, which could succeed before
      # it ran. `what` names the step (its class) or the workflow.
      def self.batch!(what)
        return unless defined?(Batch::Collector) && Thread.current[Client::COLLECTOR].is_a?(Batch::Collector)
        raise ArgumentError, "#{what}: a workflow step cannot join a batch (its job is pushed as it is released, not in the " \
          "batch's jobs block): build and push the workflow outside the block, and use add_many or add_workflow for a " \
          "group of steps that a later step waits for (docs/workflows.md)"
      end

      # `job`: a job class, or what `set` returns. One job per args Array.
      def call(job, args_list)
        JobCapture.batch!(job)
        if (active = ActiveJobSteps.class_of(job))
          Client.collecting(self) { ActiveJobSteps.push(job, active, args_list) }
        elsif (keywords = args_list.find { |args| args.last.is_a?(Keywords) })
          raise ArgumentError, "#{job}: keywords (#{keywords.last.to_h.keys.map { |key| "#{key}:" }.join(", ")}) are for an Active Job class's " \
            "perform; a Deckhand job's args are JSON, as perform_async takes them: pass a Hash with String keys as an arg instead"
        elsif job.respond_to?(:perform_bulk)
          setter = job.is_a?(Job::Setter) ? job : job.set({})
          Client.collecting(self) { setter.perform_bulk_through(Client.new(config: @config), args_list) }
        else
          raise ArgumentError, "a workflow step is a job class (or MyJob.set(...)), got #{job.inspect}"
        end
        if @jobs.size != args_list.size
          raise ArgumentError, "#{job}: a client middleware (or an Active Job enqueue callback) stopped the push of a workflow step; " \
            "a workflow's steps are all pushed or none"
        end
        unique!(@jobs.first)
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

      private

      # A unique lock is taken as a job is pushed; a step is pushed by its
      # workflow as its parents end, and runs once there already.
      def unique!(job)
        return unless job && Unique.ttl_seconds(job)
        name = job["wrapped"] || job["class"]
        raise ArgumentError, "#{name} is a unique job (unique_for: #{job["unique_for"]}), and a workflow step takes no unique " \
          "lock: its workflow runs it once. Add it as #{name}.set(unique_for: false) (for an Active Job class, a subclass " \
          "without unique_for), or push the unique job from a step's perform (docs/workflows.md)"
      end
    end
  end
end
