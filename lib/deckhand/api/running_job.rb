# frozen_string_literal: true

require "json"
require_relative "job_record"

module Deckhand
  class API
    # A job a thread is running right now, from its process's work record.
    #
    #   api.running.each { |r| puts "#{r.identity} #{r.job.display_class} since #{r.run_at}" }
    #   r.chunk_size   # => 1000 for a chunk (docs/chunks.md), whose `job` is its first member; nil for a job
    #   r.chunk_jids   # => the first 20 members' jids ([] for a job)
    class RunningJob
      attr_reader :identity, :thread, :queue, :run_at, :job, :chunk_size, :chunk_jids

      # work: a Store::Records::ProcessRecord::Work.
      def initialize(identity, work)
        @identity = identity
        @thread = work.thread
        @queue = work.queue
        @run_at = work.run_at
        @chunk_size = work.chunk&.fetch("size")
        @chunk_jids = work.chunk ? work.chunk["jids"].map(&:to_s) : []
        payload = work.payload
        @job = JobRecord.new(payload.is_a?(Hash) ? JSON.generate(payload) : payload.to_s)
      end
    end
  end
end
