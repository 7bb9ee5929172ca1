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

      def initialize(identity, thread, raw)
        @identity = identity
        @thread = thread
        work = parse(raw)
        @queue = work["queue"].to_s
        @run_at = work["run_at"].is_a?(Numeric) ? Time.at(work["run_at"]) : nil
        payload = work["payload"]
        @job = JobRecord.new(payload.is_a?(Hash) ? JSON.generate(payload) : payload.to_s)
      end

      private

      def parse(raw)
        work = JSON.parse(raw)
        work.is_a?(Hash) ? work : {}
      rescue JSON::ParserError
        {}
      end
    end
  end
end
