# frozen_string_literal: true

module Deckhand
  module Testing
    # The RSpec matcher behind have_enqueued_deckhand_job, usable without RSpec
    # through its plain interface (matches?, failure_message, description).
    #
    #   expect(WelcomeEmailJob).to have_enqueued_deckhand_job(42)
    #   expect(ReportJob).to have_enqueued_deckhand_job("weekly").on_queue("reports").in(3600)
    #   expect(WelcomeEmailJob).to have_enqueued_deckhand_job.exactly(2).times
    #   expect(WelcomeEmailJob).not_to have_enqueued_deckhand_job(7)
    #
    # With no args given, any args match.
    class EnqueuedMatcher
      def initialize(args)
        @criteria = args.empty? ? {} : {args: args}
        @count = nil
      end

      # Only jobs pushed to `queue`.
      def on_queue(queue) = tap { @criteria[:queue] = queue }

      # Only jobs scheduled at `time` (within a second).
      def at(time) = tap { @criteria[:at] = time }

      # Only jobs scheduled `seconds` from now (within a second).
      def in(seconds) = tap { @criteria[:in] = seconds }

      # Exactly `count` matching jobs.
      #
      #   expect(HardJob).to have_enqueued_deckhand_job(1).exactly(2).times
      def exactly(count) = tap { @count = count }

      # Exactly one matching job.
      def once = exactly(1)

      # Exactly two matching jobs.
      def twice = exactly(2)

      # Reads on: `exactly(3).times`.
      def times = self

      # RSpec's `to`: true when such a job was pushed (the count too, if given).
      def matches?(klass)
        @klass = klass
        @spec = Criteria.new(klass, **@criteria)
        @jobs = Testing.jobs
        @found = @spec.matching(@jobs)
        @count ? @found.size == @count : !@found.empty?
      end

      # RSpec's `not_to`: true when no such job was pushed.
      def does_not_match?(klass)
        raise ArgumentError, "not_to have_enqueued_deckhand_job cannot take exactly(n)" if @count
        !matches?(klass)
      end

      # RSpec's description of the expectation.
      def description
        "have enqueued #{"#{@count} " if @count}#{(@spec || Criteria.new("job", **@criteria)).describe}"
      end

      # What RSpec prints when no such job was pushed.
      def failure_message
        wanted = @count ? "#{@count} #{@spec.describe}, found #{@found.size}" : @spec.describe
        "expected #{wanted} to be pushed; #{Criteria.summary(@klass, @jobs)}"
      end

      # What RSpec prints when such a job was pushed after all.
      def failure_message_when_negated
        "expected no #{@spec.describe} to be pushed, found #{@found.size}; #{Criteria.summary(@klass, @jobs)}"
      end
    end

    # Included into RSpec example groups by `require "deckhand/testing/rspec"`.
    module Matchers
      # Matches a job class that pushed a job with `args`.
      #
      #   expect(HardJob).to have_enqueued_deckhand_job(1, "bob").on_queue("critical")
      def have_enqueued_deckhand_job(*args) = EnqueuedMatcher.new(args)
    end
  end
end
