# frozen_string_literal: true

require_relative "chunk"
require_relative "job/options"
require_relative "job/setter"
require_relative "job/declarations"

module Deckhand
  # Mix into a class to make it a job. Everything added to the class is prefixed
  # `deckhand_` or `perform_`, so it cannot collide with application methods.
  #
  #   class WelcomeEmailJob
  #     include Deckhand::Job
  #     deckhand_options queue: "mailers", retry: 10
  #     deckhand_retry_in { |count, error, payload| 10 * (count + 1) }
  #     deckhand_retries_exhausted { |payload, error| Alert.call(payload["jid"]) }
  #
  #     def perform(user_id)
  #       ...
  #     end
  #   end
  #
  #   WelcomeEmailJob.perform_async(42)
  #   WelcomeEmailJob.perform_in(300, 42)
  #   WelcomeEmailJob.set(queue: "critical", retry: false).perform_async(42)
  #   WelcomeEmailJob.perform_bulk([[1], [2], [3]])
  module Job
    # Gives the including class the class side (ClassMethods).
    def self.included(base)
      base.extend(ClassMethods)
    end

    # The running job's id.
    attr_accessor :jid

    # The decoded job Hash this instance was built from (read-only by convention).
    attr_accessor :deckhand_payload

    # Whether someone cancelled this job while it runs (Deckhand::Client.cancel):
    # a long job asks between steps and returns early; one that does not is
    # interrupted with Deckhand::Cancelled after the cancel's grace period.
    #
    #   def perform(ids)
    #     ids.each do |id|
    #       return if cancelled?
    #       Report.build(id)
    #     end
    #   end
    def cancelled? = !@deckhand_cancel_seen.nil?

    # Called by the server when it sees the job's cancel (a monotonic time).
    def deckhand_cancel_seen!(at) = @deckhand_cancel_seen ||= at

    # The class side of a job: `MyJob.perform_async(...)` and the declarations (deckhand_options...).
    module ClassMethods
      include Declarations

      # Per-push options over the class's.
      #
      #   HardJob.set(queue: "critical", retry: 3).perform_async(1)
      #
      # @return [Job::Setter]
      def set(options) = deckhand_setter.new(self, options)

      # Pushes a job of this class with `args` (JSON-safe values) to run now.
      #
      #   HardJob.perform_async(1, "bob")   # => its jid
      #
      # @return [String, nil] the jid, nil when a client middleware stopped the push
      def perform_async(*args) = deckhand_setter.new(self).perform_async(*args)

      # Pushes a job to run after `interval` seconds (a Numeric or an ActiveSupport::Duration).
      #
      #   HardJob.perform_in(300, 1)
      #
      # @return [String, nil] the jid
      def perform_in(interval, *args) = deckhand_setter.new(self).perform_in(interval, *args)

      # Pushes a job to run at `time` (a Time, or epoch seconds).
      #
      #   HardJob.perform_at(Time.now + 3600, 1)
      #
      # @return [String, nil] the jid
      def perform_at(time, *args) = deckhand_setter.new(self).perform_at(time, *args)

      # at: one time (epoch seconds) or one per job; spread_interval: seconds
      # to spread the jobs over at random (docs/job-options.md).
      def perform_bulk(args_list, **options) = deckhand_setter.new(self).perform_bulk(args_list, **options)

      # Runs the job now, in this thread, after a round trip through JSON (so the
      # args it sees are the args a server would see).
      def perform_inline(*args) = deckhand_setter.new(self).perform_inline(*args)

      private

      # What `set` and the perform_ methods push through: drop-in mode's
      # Sidekiq::Job answers its own, which takes Sidekiq's options.
      def deckhand_setter = Setter
    end
  end
end
