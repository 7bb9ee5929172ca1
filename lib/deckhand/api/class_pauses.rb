# frozen_string_literal: true

require_relative "../store/jobs/held_classes"

module Deckhand
  class API
    # Pause by job class (docs/web.md, "Pausing a job class"): jobs of a paused
    # class wait, held aside as they were fetched, while the other jobs of
    # their queues run; a resume puts them back in their queues. Server
    # processes see a pause or a resume with their next heartbeat.
    #
    #   pauses = api.class_pauses
    #   pauses.pause("ReportJob")    # => true (false when it was paused already)
    #   pauses.held                  # => {"ReportJob" => 3} (jobs held per paused class)
    #   pauses.resume(ReportJob)     # => 3 (jobs back in their queues)
    class ClassPauses
      def initialize(config)
        @config = config
        @store = config.store
      end

      # Pauses a job class (a class or its name) across the fleet.
      #
      #   api.class_pauses.pause("ReportJob")   # => true; false when it was paused already
      #
      # @return [Boolean]
      def pause(job_class) = Store::Jobs::HeldClasses.pause(@store, name_of(job_class))

      # Returns how many held jobs went back to their queues.
      def resume(job_class) = Store::Jobs::HeldClasses.resume(@store, name_of(job_class), lists)

      # The names of the paused job classes.
      #
      #   api.class_pauses.paused   # => ["ReportJob"]
      #
      # @return [Array<String>]
      def paused = Store::Jobs::HeldClasses.paused(@store)

      # True while the job class (a class or its name) is paused.
      #
      #   api.class_pauses.paused?(ReportJob)
      #
      # @return [Boolean]
      def paused?(job_class) = paused.include?(name_of(job_class))

      # Each paused class with how many of its jobs are held, in every queue.
      def held
        queues = lists
        paused.to_h { |name| [name, Store::Jobs::HeldClasses.held(@store, name, queues).values.sum] }
      end

      private

      # Every list a job may have been fetched from: each known queue and its partitions.
      def lists = Store::Jobs::Queues.names(@store).flat_map { |queue| @config.partitions.names(queue) }

      def name_of(job_class)
        name = job_class.is_a?(Module) ? job_class.name : job_class
        return name if name.is_a?(String) && !name.empty?
        raise ArgumentError, "name a job class (ReportJob or \"ReportJob\"; an Active Job class by its own name), got #{job_class.inspect}"
      end
    end
  end
end
