# frozen_string_literal: true

module Deckhand
  module Testing
    # Minitest assertions over the jobs collected in fake mode. Included into
    # Minitest::Test (and so ActiveSupport::TestCase) by
    # `require "deckhand/testing/minitest"`.
    #
    #   assert_enqueued WelcomeEmailJob, args: [42]
    #   assert_enqueued ReportJob, queue: "reports", in: 3600
    #   assert_enqueued(WelcomeEmailJob, count: 2) { invite(a, b) }  # pushed by the block
    #   refute_enqueued WelcomeEmailJob
    #
    # args compare as a server would see them (after JSON: symbol keys become
    # strings); a scheduled time (at: a Time, in: seconds) matches within a second.
    module Assertions
      # Asserts that jobs of `klass` matching the criteria were pushed: at least
      # one, or exactly `count`. With a block, counts only what the block pushed.
      def assert_enqueued(klass, count: nil, **criteria, &block)
        found, jobs, spec = enqueued(klass, criteria, &block)
        message = if count
          "expected #{count} #{spec.describe} pushed, found #{found.size}"
        else
          "expected #{spec.describe} to be pushed"
        end
        assert(count ? found.size == count : !found.empty?, -> { "#{message}; #{Criteria.summary(klass, jobs)}" })
        found
      end

      # Asserts that no job of `klass` matching the criteria was pushed (by the
      # block, when given).
      def refute_enqueued(klass, **criteria, &block)
        found, jobs, spec = enqueued(klass, criteria, &block)
        refute(found.any?, -> { "expected no #{spec.describe} pushed, found #{found.size}; #{Criteria.summary(klass, jobs)}" })
      end

      private

      def enqueued(klass, criteria)
        spec = Criteria.new(klass, **criteria)
        queues = Testing.queues
        if block_given?
          mark = queues.mark
          yield
          jobs = queues.since(mark)
        else
          jobs = queues.all
        end
        [spec.matching(jobs), jobs, spec]
      end
    end
  end
end
