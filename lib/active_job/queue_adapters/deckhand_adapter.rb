# frozen_string_literal: true

require "active_job"
require "deckhand"
require "deckhand/lifecycle"

module ActiveJob
  module QueueAdapters
    # Runs Active Job jobs on Deckhand:
    #
    #   # config/application.rb
    #   config.active_job.queue_adapter = :deckhand
    #
    #   WelcomeEmailJob.perform_later(user)
    #   WelcomeEmailJob.set(wait: 5.minutes).perform_later(user)
    #   ActiveJob.perform_all_later(users.map { |u| WelcomeEmailJob.new(u) })  # bulk pushes
    #
    # Each job travels as a Deckhand job of class JobWrapper whose one argument
    # is the job's serialized Hash, with "wrapped" naming the Active Job class
    # for dashboards. Active Job's own retry_on and discard_on decide first; an
    # error they let through fails the Deckhand job, which Deckhand retries
    # (25 times by default) and then moves to the dead set.
    class DeckhandAdapter < (defined?(AbstractAdapter) ? AbstractAdapter : Object)
      def enqueue(job) = push(job, nil)

      def enqueue_at(job, timestamp) = push(job, timestamp)

      # perform_all_later: one bulk push per job class and queue, scheduled and
      # immediate jobs together. Returns how many were pushed.
      def enqueue_all(jobs)
        jobs.group_by { |job| [job.class, job.queue_name] }.sum do |(klass, queue), group|
          jids = Deckhand::Client.push_bulk(options(klass).merge(
            "class" => JobWrapper, "wrapped" => klass.name, "queue" => queue,
            "args" => group.map { |job| [job.serialize] },
            "at" => group.map { |job| job.scheduled_at&.to_f }
          ))
          group.zip(jids).count do |job, jid|
            next false unless jid
            job.provider_job_id = jid
            job.successfully_enqueued = true
          end
        end
      end

      # True once this Deckhand process has begun a graceful stop: a long job
      # (or a job continuation, in Rails versions that have them) can stop at
      # a safe point and be resumed. See Deckhand::Lifecycle.
      def stopping? = Deckhand::Lifecycle.stopping?

      private

      def push(job, at)
        item = options(job.class).merge("class" => JobWrapper, "wrapped" => job.class.name, "queue" => job.queue_name, "args" => [job.serialize])
        item["at"] = at.to_f if at
        job.provider_job_id = Deckhand::Client.push(item)
      end

      # Deckhand's job options an Active Job class declared (it extends
      # Deckhand::Job::Declarations): unique and expiring jobs.
      JOB_OPTIONS = %w[unique_for unique_until on_conflict expires_in].freeze

      def options(klass) = klass.respond_to?(:deckhand_options) ? klass.deckhand_options.slice(*JOB_OPTIONS) : {}

      # The Deckhand job that runs an Active Job job.
      class JobWrapper
        include Deckhand::Job

        PROVIDER_JOB_ID = "provider_job_id"
        ABSENT = Object.new.freeze

        # Active Job reads the job's provider id from its data. It is written
        # into the data in place, not into a copy (a 12-entry Hash per job),
        # and put back as it was before perform returns or raises, so a retry
        # or the dead set keeps the args exactly as they were pushed. (Should
        # the shutdown interrupt land inside the put-back, the job is not
        # written from this Hash: it goes back to its queue from its stored bytes.)
        def perform(job_data)
          return Base.execute(job_data) unless job_data.is_a?(Hash) # Active Job names the problem
          previous = job_data.fetch(PROVIDER_JOB_ID, ABSENT)
          job_data[PROVIDER_JOB_ID] = jid
          begin
            Base.execute(job_data)
          ensure
            if previous.equal?(ABSENT)
              job_data.delete(PROVIDER_JOB_ID)
            else
              job_data[PROVIDER_JOB_ID] = previous
            end
          end
        end
      end
    end
  end
end
