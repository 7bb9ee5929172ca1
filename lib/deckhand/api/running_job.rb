# frozen_string_literal: true

require "json"
require_relative "job_record"

module Deckhand
  class API
    # A job a thread is running right now, from its process's work record.
    #
    #   api.running.each { |r| puts "#{r.identity} #{r.job.display_class} since #{r.run_at}" }
    class RunningJob
      attr_reader :identity, :thread, :queue, :run_at, :job

      # work: a Store::Records::ProcessRecord::Work.
      def initialize(identity, work)
        @identity = identity
        @thread = work.thread
        @queue = work.queue
        @run_at = work.run_at
        payload = work.payload
        @job = JobRecord.new(payload.is_a?(Hash) ? JSON.generate(payload) : payload.to_s)
      end
    end
  end
end
