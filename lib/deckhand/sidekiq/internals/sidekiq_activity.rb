# frozen_string_literal: true

require "deckhand/server"

module Deckhand
  module DropIn
    # What Sidekiq::Launcher's server counts and publishes: Deckhand's own
    # activity, plus Sidekiq's, as a Sidekiq launcher's heartbeat writes
    # them: the jobs in Sidekiq::Processor::WORK_STATE's own entries among
    # the busy ones, and the processed and failed counts of
    # Sidekiq::Processor::PROCESSED and FAILURE in the stats.
    #
    #   activity = SidekiqActivity.new(Sidekiq::Processor)
    #   Sidekiq::Processor::WORK_STATE.set("t1", {queue: "default", payload: json, run_at: 1_700_000_000})
    #   activity.running.keys   # => ["t1", and this server's busy threads]
    class SidekiqActivity < Server::Chores::Activity # :nodoc:
      Entry = Struct.new(:queue, :payload, :run_at)
      private_constant :Entry

      # processor: what holds WORK_STATE, PROCESSED and FAILURE.
      def initialize(processor)
        super()
        @processor = processor
      end

      # This server's own busy threads, without Sidekiq's entries.
      alias_method :server_running, :running

      def running
        sidekiq = @processor::WORK_STATE.own.to_h { |tid, job| [tid, entry(job)] }
        server_running.merge(sidekiq)
      end

      # The counts since the last beat, Sidekiq's added.
      def take
        processed, failed, expired = super
        [processed + @processor::PROCESSED.reset, failed + @processor::FAILURE.reset, expired]
      end

      private

      # Sidekiq keeps {queue:, payload:, run_at:}; a plugin or a test may set anything.
      def entry(job)
        return Entry.new(nil, job, nil) unless job.is_a?(Hash)
        Entry.new(job[:queue] || job["queue"], job[:payload] || job["payload"] || job, job[:run_at] || job["run_at"])
      end
    end
  end
end
