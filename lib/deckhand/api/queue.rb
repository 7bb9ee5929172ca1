# frozen_string_literal: true

require_relative "queued_job"
require_relative "queue_tenant"

module Deckhand
  class API
    # One queue: its size, latency and jobs, and the actions on it.
    #
    #   queue = api.queue("mailers")
    #   queue.size       # => 1_000_000
    #   queue.latency    # => 12.5 (seconds the next job has waited)
    #   queue.jobs(page: 2, per_page: 25)   # => [QueuedJob, ...] in the order they will run
    #   queue.pause      # server processes skip it until #resume
    #   queue.clear
    class Queue
      attr_reader :name

      def self.all(config)
        store = config.store
        Store::Queues.summaries(store, Store::Queues.names(store)).map do |name, size, oldest, paused|
          new(name, config, size: size, oldest: oldest, paused: paused)
        end
      end

      def initialize(name, config, size: nil, oldest: :unknown, paused: nil)
        @name = name.to_s
        @config = config
        @store = config.store
        @size = size
        @oldest = oldest
        @paused = paused
      end

      def size = @size ||= Store::Queues.size(@store, @name)

      # Seconds the next job to run has been waiting (0 when empty).
      def latency(now = Time.now)
        raw = oldest or return 0.0
        JobRecord.new(raw).latency(now)
      end

      def paused? = @paused.nil? ? (@paused = Store::Queues.paused?(@store, @name)) : @paused

      # One page (1-based) of jobs in the order they will run.
      def jobs(page: 1, per_page: 25)
        offset = (page - 1) * per_page
        Store::Queues.page(@store, @name, offset, per_page).each_with_index.map do |raw, i|
          QueuedJob.new(raw, offset + i)
        end
      end

      # Deletes the job with this jid; `position` (from QueuedJob#position) says
      # where to look. Returns true when it was found and deleted.
      def delete_job(jid, position: 0) = Store::Queues.delete(@store, @name, jid, position: position)

      # Deletes the entry with this QueuedJob#digest, looking around `position`:
      # for entries that are not jobs. Returns true when it was deleted.
      #
      #   queue.delete_entry(job.digest, position: job.position)
      def delete_entry(digest, position: 0) = Store::Queues.delete_entry(@store, @name, digest, position: position)

      def clear = Store::Queues.clear(@store, @name)

      # A fair queue's tenants with the most jobs waiting (API::QueueTenant),
      # deepest first; none for a queue without tenants.
      def tenants(count = 10) = QueueTenant.top(@store, @name, count)

      def pause
        Store::Queues.pause(@store, @name)
        @paused = true
      end

      def resume
        Store::Queues.resume(@store, @name)
        @paused = false
      end

      private

      def oldest
        @oldest = Store::Queues.oldest(@store, @name) if @oldest == :unknown
        @oldest
      end
    end
  end
end
