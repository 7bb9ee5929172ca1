# frozen_string_literal: true

require_relative "../store/jobs/held_classes"
require_relative "../store/jobs/held_search"
require_relative "held_job"

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
    #   pauses.find_held(jid)        # => HeldJob (its queue, its class) or nil
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

      # The job with this jid when it is held aside (its class paused), else
      # nil. Reads the held sets of the classes paused now, in pages.
      #
      #   api.class_pauses.find_held("b4a577edbccf1d805744efa9")&.queue   # => "reports"
      #
      # @return [HeldJob, nil]
      def find_held(jid)
        list, name, _, raw = Store::Jobs::HeldSearch.find(@store, lists, jid.to_s)
        raw && HeldJob.new(raw, list, name)
      end

      # Every list a job may have been fetched from, and held in: each known
      # queue and its partitions.
      def lists = Store::Jobs::Queues.names(@store).flat_map { |queue| @config.partitions.names(queue) }.uniq # :nodoc:

      private

      def name_of(job_class)
        name = job_class.is_a?(Module) ? job_class.name : job_class
        return name if name.is_a?(String) && !name.empty?
        raise ArgumentError, "name a job class (ReportJob or \"ReportJob\"; an Active Job class by its own name), got #{job_class.inspect}"
      end
    end
  end
end
