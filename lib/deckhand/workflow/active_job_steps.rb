# frozen_string_literal: true

module Deckhand
  class Workflow
    # Steps of an Active Job class: each is built by the class's own
    # perform_later, through Deckhand's adapter (JobCapture collects what
    # it pushes), so it is the job `perform_later` would push, its
    # arguments serialized by Active Job. Active Job is looked for, never
    # loaded here.
    #
    #   ActiveJobSteps.class_of(WelcomeEmailJob.set(queue: "mailers"))   # => WelcomeEmailJob
    #   ActiveJobSteps.push(WelcomeEmailJob, WelcomeEmailJob, [[1], [2]])
    module ActiveJobSteps
      module_function

      # The Active Job class `job` is (a class, or what its `set` returns),
      # or nil.
      def class_of(job)
        return nil unless defined?(::ActiveJob::Base)
        # ConfiguredJob (what `set` returns) keeps its class without a reader.
        klass = (defined?(::ActiveJob::ConfiguredJob) && job.is_a?(::ActiveJob::ConfiguredJob)) ? job.instance_variable_get(:@job_class) : job
        klass if klass.is_a?(Class) && klass <= ::ActiveJob::Base
      end

      # Pushes one job per args Array; inside Client.collecting nothing
      # reaches Redis. Raises, naming the fix, unless the class runs on
      # Deckhand's adapter (another adapter would run it outside the workflow).
      def push(job, klass, args_list)
        adapter = klass.queue_adapter
        unless defined?(::ActiveJob::QueueAdapters::DeckhandAdapter) && adapter.is_a?(::ActiveJob::QueueAdapters::DeckhandAdapter)
          raise ArgumentError, "#{klass} runs on the #{adapter.class} queue adapter, and a workflow step runs on Deckhand's: " \
            "set config.active_job.queue_adapter = :deckhand (or #{klass}.queue_adapter = :deckhand) (docs/rails.md)"
        end
        args_list.each { |args| perform_later(job, args) }
      end

      # The Keywords that end an args Array from Workflow.args are passed
      # as keywords; a Hash stays positional, as with perform_later.
      def perform_later(job, args)
        return job.perform_later(*args) unless args.last.is_a?(Keywords)
        job.perform_later(*args[0...-1], **args.last.to_h)
      end
    end
  end
end
