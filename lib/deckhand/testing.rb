# frozen_string_literal: true

require_relative "../deckhand"
require_relative "testing/fake_queues"
require_relative "testing/runner"
require_relative "testing/pusher"
require_relative "testing/job_methods"
require_relative "testing/criteria"
require_relative "testing/iteration_states"

module Deckhand
  # Runs an application's jobs in its own test suite, without a Deckhand server.
  # Requiring it turns on the fake mode.
  #
  #   require "deckhand/testing"
  #
  #   SignupService.call(email)                 # pushes WelcomeEmailJob
  #   assert_equal 1, WelcomeEmailJob.jobs.size # collected, not sent to Redis
  #   WelcomeEmailJob.drain                     # runs it (and any job it pushes)
  #
  #   Deckhand::Testing.inline! { SignupService.call(email) } # runs jobs in the caller
  #   Deckhand::Testing.disable! { ... }                      # real Redis
  #
  # Modes: fake (jobs collect in memory, per job class), inline (each job runs
  # at once, in the thread that pushed it, exceptions and all) and disable
  # (pushes go to Redis). The bare forms set the mode for the whole process; the
  # block forms set it for the calling thread until the block returns, so
  # tests running in parallel threads do not see each other's mode. The
  # collected jobs are shared by all threads, behind a lock.
  module Testing
    # The modes: collect pushed jobs (fake), run them at the push (inline), or push to Redis (disable).
    MODES = %i[fake inline disable].freeze
    # The thread (fiber) local holding a block's mode.
    THREAD_KEY = :deckhand_testing_mode

    @lock = Mutex.new
    @mode = :fake
    @queues = FakeQueues.new
    @server_middleware = Middleware::Chain.new
    @iterations = IterationStates.new(self)

    class << self
      # Every job collected in fake mode, oldest first. See FakeQueues.
      attr_reader :queues

      # Server middleware that drain, perform_one and inline mode run jobs
      # through (the server's own chain belongs to a server's Config).
      attr_reader :server_middleware

      # Iterable jobs' saved progress in fake and inline mode, by jid.
      attr_reader :iterations

      # Collects pushed jobs in memory (the default); with a block, only inside it.
      #
      #   Deckhand::Testing.fake! { HardJob.perform_async(1) }
      #   HardJob.jobs.size   # => 1
      def fake!(&) = switch(:fake, &)

      # Runs each pushed job at once, in the pushing thread; with a block, only inside it.
      #
      #   Deckhand::Testing.inline! { HardJob.perform_async(1) }   # ran
      def inline!(&) = switch(:inline, &)

      # Pushes to Redis as in production; with a block, only inside it.
      def disable!(&) = switch(:disable, &)

      # The mode in force for the calling thread.
      def mode = Thread.current[THREAD_KEY] || @mode

      # Whether pushed jobs are collected here.
      def fake? = mode == :fake

      # Whether pushed jobs run at once here.
      def inline? = mode == :inline

      # Whether pushes go to Redis here.
      def disabled? = mode == :disable

      # Every collected job, of every class, oldest first.
      def jobs = @queues.all

      # Forgets every collected job and every iterable job's saved state.
      def clear_all
        @queues.clear
        @iterations.clear
      end

      # Runs collected jobs, of every class, until none is left (jobs they push
      # included). Returns how many ran.
      def drain_all
        count = 0
        while (job = @queues.shift)
          Runner.perform(job, @server_middleware)
          count += 1
        end
        count
      end

      private

      def switch(mode)
        raise ArgumentError, "unknown testing mode #{mode.inspect}" unless MODES.include?(mode)
        install
        return @lock.synchronize { @mode = mode } unless block_given?
        previous = Thread.current[THREAD_KEY]
        Thread.current[THREAD_KEY] = mode
        begin
          yield
        ensure
          Thread.current[THREAD_KEY] = previous
        end
      end

      # Puts the testing pusher in front of whatever pusher was there before
      # (nil for Redis, or push-after-commit), which disable! hands jobs to.
      def install
        @lock.synchronize do
          @installed ||= (Client.pusher = Pusher.new(Client.pusher, self))
          IterableJob.states ||= @iterations
        end
      end
    end

    install
    Job::ClassMethods.include(JobMethods)
    # Fake and inline mode never reach Redis: what would read it for its own
    # bookkeeping (the fleet's timestamp format, an inline job's unique lock) does not.
    RedisStandIn.register { !disabled? }
  end
end
