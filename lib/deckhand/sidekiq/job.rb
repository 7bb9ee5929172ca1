# frozen_string_literal: true

module Sidekiq
  # `include Sidekiq::Job` (or Sidekiq::Worker) in drop-in mode: a Deckhand
  # job with Sidekiq's class methods.
  #
  #   class HardJob
  #     include Sidekiq::Job
  #     sidekiq_options queue: "critical", retry: 5
  #     sidekiq_retry_in { |count, error, job| 10 * (count + 1) }
  #     sidekiq_retries_exhausted { |job, error| Alerts.dead(job["jid"]) }
  #
  #     def perform(id) = logger.info("working on #{id}")
  #   end
  #
  #   HardJob.perform_async(1); HardJob.set(queue: "low").perform_in(60, 2)
  module Job
    # What `set` returns (Sidekiq::Job::Setter in Sidekiq).
    Setter = Deckhand::DropIn::JobSetter

    def self.included(base)
      if defined?(::ActiveJob::Base) && base <= ::ActiveJob::Base
        raise ArgumentError, "Sidekiq::Job cannot be included in an ActiveJob: #{base.name || base.inspect} is an " \
          "Active Job already; give it sidekiq_options directly (Active Job classes take them in drop-in mode), " \
          "or make it a plain class that includes Sidekiq::Job"
      end
      base.include(Deckhand::Job)
      base.extend(ClassMethods)
    end

    # What Sidekiq's processor sets on a job (an object answering
    # `stopping?`); in a Deckhand server, the process's own state answers.
    attr_accessor :_context

    def logger = Sidekiq.logger

    # True once the process has begun to stop: a long job can end early and
    # be pushed again to resume.
    def interrupted? = _context ? _context.stopping? : Deckhand::Lifecycle.stopping?

    # The batch this job runs in (Sidekiq::Batch), or nil.
    def bid = deckhand_payload&.dig("bid")

    def batch = bid && Sidekiq::Batch.new(bid)

    # sidekiq_options, sidekiq_retry_in, sidekiq_retries_exhausted and
    # sidekiq_class_attribute come from Options::ClassMethods.
    module ClassMethods
      include Options::ClassMethods

      # Sidekiq 7.3's name for sidekiq_options queue:.
      def queue_as(queue) = sidekiq_options("queue" => queue.to_s)

      # set and the perform_ methods are Deckhand::Job's, through
      # Sidekiq's Setter (#deckhand_setter).
      def perform_sync(*args) = perform_inline(*args)

      # Sidekiq's delayed extensions are gone (since Sidekiq 7): each says
      # what to call instead, as Sidekiq 8's do.
      def delay(*) = raise(ArgumentError, "Do not call .delay on a Sidekiq::Job class, call .perform_async")

      def delay_for(*) = raise(ArgumentError, "Do not call .delay_for on a Sidekiq::Job class, call .perform_in")

      def delay_until(*) = raise(ArgumentError, "Do not call .delay_until on a Sidekiq::Job class, call .perform_at")

      # Sidekiq's lower-level push: a Hash of job keys ("args" required). Its
      # "pool" wins over a Client.via block, which wins over sidekiq_options
      # pool:. It goes through the class's client_class, as in Sidekiq.
      def client_push(item)
        item = item.transform_keys(&:to_s)
        item.delete(Deckhand::DropIn::ClientClass::KEY)
        options = deckhand_options
        pool = item.delete("pool") || Deckhand::Client.via_target || options["pool"]
        client = Deckhand::DropIn::ClientClass.for_push(self) || Sidekiq::Client
        client.new(pool: pool).push(options.except("pool").merge(item).merge("class" => self))
      end

      private

      def deckhand_setter = Setter
    end
  end

  Worker = Job
end
