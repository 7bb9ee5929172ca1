# frozen_string_literal: true

require "json"

module Deckhand
  module Testing
    # What an assertion or matcher looks for among the collected jobs: a job
    # class, and optionally its args, queue and scheduled time. Shared by the
    # minitest assertions and the RSpec matcher.
    #
    #   criteria = Criteria.new(WelcomeEmailJob, args: [42], queue: "mailers")
    #   criteria.matching(Deckhand::Testing.jobs)   # => the jobs that match
    #   criteria.describe                           # => "WelcomeEmailJob with args [42] on queue \"mailers\""
    class Criteria
      # A scheduled time matches within this many seconds (a test computes its
      # expected time a moment after the job was pushed).
      TIME_TOLERANCE = 1.0
      # Matches any arguments.
      ANY = Object.new.freeze

      def initialize(klass, args: ANY, queue: nil, at: nil, in: nil)
        @name = klass.to_s
        # Compared as a server would see them: after a trip through JSON.
        @args = args.equal?(ANY) ? ANY : JSON.parse(JSON.generate(Array(args)))
        @queue = queue&.to_s
        interval = binding.local_variable_get(:in)
        @at = at ? at.to_f : interval && Time.now.to_f + interval.to_f
      end

      # The jobs that match.
      def matching(jobs) = jobs.select { |job| match?(job) }

      # Whether `job` (a payload Hash) matches.
      def match?(job)
        job["class"] == @name &&
          (@args.equal?(ANY) || job["args"] == @args) &&
          (@queue.nil? || job["queue"] == @queue) &&
          (@at.nil? || (job["at"] && (job["at"] - @at).abs <= TIME_TOLERANCE))
      end

      # The criteria in words, for a failure message.
      def describe
        text = +@name
        text << " with args #{@args.inspect}" unless @args.equal?(ANY)
        text << " on queue #{@queue.inspect}" if @queue
        text << " scheduled at #{Time.at(@at).utc}" if @at
        text
      end

      # The collected jobs of the class, for a failure message.
      def self.summary(name, jobs)
        mine = jobs.select { |job| job["class"] == name.to_s }
        return "no #{name} job was pushed" if mine.empty?
        lines = mine.map do |job|
          at = job["at"] ? " at #{Time.at(job["at"]).utc}" : ""
          "  #{job["args"].inspect} on #{job["queue"].inspect}#{at}"
        end
        "#{name} jobs pushed:\n#{lines.join("\n")}"
      end
    end
  end
end
