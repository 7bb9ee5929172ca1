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

      def on_queue(queue) = tap { @criteria[:queue] = queue }

      def at(time) = tap { @criteria[:at] = time }

      def in(seconds) = tap { @criteria[:in] = seconds }

      def exactly(count) = tap { @count = count }

      def once = exactly(1)

      def twice = exactly(2)

      def times = self

      def matches?(klass)
        @klass = klass
        @spec = Criteria.new(klass, **@criteria)
        @jobs = Testing.jobs
        @found = @spec.matching(@jobs)
        @count ? @found.size == @count : !@found.empty?
      end

      def does_not_match?(klass)
        raise ArgumentError, "not_to have_enqueued_deckhand_job cannot take exactly(n)" if @count
        !matches?(klass)
      end

      def description
        "have enqueued #{"#{@count} " if @count}#{(@spec || Criteria.new("job", **@criteria)).describe}"
      end

      def failure_message
        wanted = @count ? "#{@count} #{@spec.describe}, found #{@found.size}" : @spec.describe
        "expected #{wanted} to be pushed; #{Criteria.summary(@klass, @jobs)}"
      end

      def failure_message_when_negated
        "expected no #{@spec.describe} to be pushed, found #{@found.size}; #{Criteria.summary(@klass, @jobs)}"
      end
    end

    # Included into RSpec example groups by `require "deckhand/testing/rspec"`.
    module Matchers
      def have_enqueued_deckhand_job(*args) = EnqueuedMatcher.new(args)
    end
  end
end
