# frozen_string_literal: true

require "active_job"
require "deckhand"
require "deckhand/lifecycle"
require "deckhand/class_aliases"

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
    #   WelcomeEmailJob.set(priority: -10).perform_later(user)  # ahead of the queue's others (docs/priority.md)
    #
    # Each job travels as a Deckhand job of class JobWrapper whose one argument
    # is the job's serialized Hash, with "wrapped" naming the Active Job class
    # for dashboards. Active Job's own retry_on and discard_on decide first; an
    # error they let through fails the Deckhand job, which Deckhand retries
    # (25 times by default, or what the class's deckhand_options retry: says)
    # and then moves to the dead set.
    #
    # The wrapper's class name written into each job follows the fleet
    # sharing the Redis (Deckhand::Config::FleetVersions): while Sidekiq
    # processes are registered there, a name every one of them runs
    # (ActiveJob::QueueAdapters::SidekiqAdapter::JobWrapper with a Sidekiq 7
    # among them, Sidekiq::ActiveJob::Wrapper with Sidekiq 8 alone), so a
    # mixed fleet runs the jobs on either side. Otherwise the adapter's own
    # default: NAME, or in drop-in mode (deckhand/sidekiq) Sidekiq's
    # SidekiqAdapter::JobWrapper, which every Sidekiq 7 and 8 runs after a
    # rollback. A server runs every one of these names on JobWrapper.
    #
    #   DeckhandAdapter.job_class_name = "Sidekiq::ActiveJob::Wrapper" # one name, whatever the fleet
    class DeckhandAdapter < (defined?(AbstractAdapter) ? AbstractAdapter : Object)
      NAME = "ActiveJob::QueueAdapters::DeckhandAdapter::JobWrapper"
      SIDEKIQ_NAMES = %w[ActiveJob::QueueAdapters::SidekiqAdapter::JobWrapper Sidekiq::ActiveJob::Wrapper].freeze

      class << self
        # The job class name written into every job whatever the fleet runs;
        # nil (the default) follows the fleet.
        attr_reader :job_class_name

        # What is written while no Sidekiq process shares the Redis (drop-in
        # mode sets Sidekiq's name).
        attr_reader :default_class_name

        def job_class_name=(name)
          @job_class_name = name.nil? ? nil : known!(name, "job_class_name")
        end

        def default_class_name=(name)
          @default_class_name = known!(name, "default_class_name")
        end

        # The wrapper's class name for a job pushed with `config` (a
        # Client's, whose store is the Redis the job goes to).
        def class_name_for(config)
          job_class_name || config.fleet_versions.active_job_class || default_class_name
        end

        private

        def known!(name, setting)
          return name if name == NAME || SIDEKIQ_NAMES.include?(name)
          raise ArgumentError, "#{setting} must be one of #{[NAME, *SIDEKIQ_NAMES].join(", ")} (or nil to follow the fleet), got #{name.inspect}"
        end
      end
      @job_class_name = nil
      @default_class_name = NAME

      def enqueue(job) = push(job, nil)

      def enqueue_at(job, timestamp) = push(job, timestamp)

      # perform_all_later: one bulk push per job class and queue, scheduled and
      # immediate jobs together. Returns how many were pushed.
      def enqueue_all(jobs)
        jobs.group_by { |job| [job.class, job.queue_name, job.priority] }.sum do |(klass, queue, priority), group|
          options, pool = options(klass)
          client = Deckhand::Client.new(pool: pool)
          item = options.merge(
            "class" => DeckhandAdapter.class_name_for(client.config), "wrapped" => klass.name, "queue" => queue,
            "args" => group.map { |job| [job.serialize] },
            "at" => group.map { |job| job.scheduled_at&.to_f }
          )
          item["priority"] = priority unless priority.nil?
          jids = client.push_bulk(item)
          group.zip(jids).count do |job, jid|
            next false unless jid
            job.provider_job_id = jid
            job.successfully_enqueued = true
          end
        end
      end

      # True once this Deckhand process has begun a graceful stop: a long job
      # (or a job continuation, in Rails versions that have them) can stop at
      # a safe point and be resumed. See Deckhand::Lifecycle. The job asking
      # may be given, as Sidekiq 8.1's adapter allows; the answer is the
      # process's.
      def stopping?(_job = nil) = Deckhand::Lifecycle.stopping?

      private

      def push(job, at)
        options, pool = options(job.class)
        client = Deckhand::Client.new(pool: pool)
        item = options.merge("class" => DeckhandAdapter.class_name_for(client.config), "wrapped" => job.class.name, "queue" => job.queue_name,
          "args" => [job.serialize])
        item["at"] = at.to_f if at
        item["priority"] = job.priority unless job.priority.nil? # Active Job's priority: lower runs first, as Deckhand's
        # A job that answers `profile` (Sidekiq 8's way, set(profile: "mike")) is profiled.
        item["profile"] = job.profile if job.respond_to?(:profile) && !job.profile.nil?
        # A workflow step's own job enqueued again by Active Job (retry_on)
        # stays that step (Deckhand::Workflow::ActiveJobRejoin).
        step = Thread.current[:deckhand_workflow_active_job_step]
        item = step.rejoin(job, item) if step
        job.provider_job_id = client.push(item)
      end

      NO_OPTIONS = [{}.freeze, nil].freeze

      # The job options an Active Job class declared (deckhand_options, or
      # sidekiq_options in drop-in mode) and the Redis of its pool: option, if
      # any. Its queue stays Active Job's (queue_as), as with Sidekiq's adapter.
      def options(klass)
        return NO_OPTIONS unless klass.respond_to?(:deckhand_options)
        options = klass.deckhand_options
        [options.except("queue", "pool"), options["pool"]]
      end

      # The Deckhand job that runs an Active Job job. Its retry rules are the
      # wrapped class's (deckhand_retry_in, deckhand_retries_exhausted; in
      # drop-in mode sidekiq_retry_in, sidekiq_retries_exhausted), as with
      # Sidekiq's adapter.
      class JobWrapper
        include Deckhand::Job

        # The wrapped class's rule `name` (a block), or nil. Looked up on a
        # failure only; a class this process lacks has no rules.
        def self.wrapped_rule(payload, name)
          wrapped = payload["wrapped"]
          klass = wrapped.is_a?(String) ? Object.const_get(wrapped) : nil
          klass.public_send(name) if klass.is_a?(Class) && klass.respond_to?(name)
        rescue NameError, LoadError
          nil
        end

        RETRY_IN = ->(count, error, payload) { wrapped_rule(payload, :deckhand_retry_in)&.call(count, error, payload) }
        RETRIES_EXHAUSTED = ->(payload, error) { wrapped_rule(payload, :deckhand_retries_exhausted)&.call(payload, error) }

        def self.deckhand_retry_in = RETRY_IN

        def self.deckhand_retries_exhausted = RETRIES_EXHAUSTED

        # The chunk options of the class a job wraps (ChunkRun), or nil.
        def self.deckhand_chunk(payload) = ChunkRun.options(payload)

        # The members of a chunk of the wrapped class (ChunkRun).
        def perform_chunk(chunk) = ChunkRun.call(chunk)

        PROVIDER_JOB_ID = "provider_job_id"
        ABSENT = Object.new.freeze

        @active_jobs = {}.freeze
        @lock = Mutex.new

        # Active Job builds the class its data names before it looks at it,
        # so a payload naming any other class (written into Redis by hand)
        # is refused first: Deckhand::JobClasses's rule, one level down.
        # Each name is checked once; a name this process lacks is left to
        # Active Job, whose error retries the job (a deploy under way).
        def self.active_job!(name)
          return if @active_jobs[name] || !name.is_a?(String)
          klass = ActiveSupport::Inflector.safe_constantize(name) or return
          unless klass.is_a?(Class) && klass <= Base
            shown = (name.length > 200) ? "#{name[0, 200]}..." : name
            raise Deckhand::NotAJobClass, "#{shown} is not an Active Job class: the Active Job wrapper runs only " \
              "classes that inherit from ActiveJob::Base (ApplicationJob); a payload naming any other class is never run"
          end
          @lock.synchronize { @active_jobs = @active_jobs.merge(name => true).freeze }
        end

        # Active Job reads the job's provider id from its data. It is written
        # into the data in place, not into a copy (a 12-entry Hash per job),
        # and put back as it was before perform returns or raises, so a retry
        # or the dead set keeps the args exactly as they were pushed. (Should
        # the shutdown interrupt land inside the put-back, the job is not
        # written from this Hash: it goes back to its queue from its stored bytes.)
        def perform(job_data)
          return Base.execute(job_data) unless job_data.is_a?(Hash) # Active Job names the problem
          JobWrapper.active_job!(job_data["job_class"])
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

# Jobs Sidekiq's adapters wrote run on Deckhand's wrapper, whichever mode
# this process runs in, before Rails could autoload Sidekiq's adapter.
ActiveJob::QueueAdapters::DeckhandAdapter::SIDEKIQ_NAMES.each do |name|
  Deckhand::ClassAliases.add(name, ActiveJob::QueueAdapters::DeckhandAdapter::JobWrapper)
end

require_relative "deckhand_adapter/chunk_run" # reopens the adapter defined above
