# frozen_string_literal: true

require "json"
require "logger"
require "sidekiq"
require "sidekiq/api"
begin
  # Sidekiq's server files read $TESTING, which only Sidekiq's own suite sets:
  # load them without Ruby's "not initialized" warning on every run.
  verbose, $VERBOSE = $VERBOSE, nil
  require "sidekiq/embedded"
ensure
  $VERBOSE = verbose
end

module Deckhand
  # The real Sidekiq gem on the test Redis, to prove both share it faithfully.
  #
  #   SidekiqHarness.client!                     # Sidekiq's client and API read the test Redis
  #   SidekiqHarness.server(queues: ["default"]) do
  #     MyJob.perform_async(1)                   # pushed by Deckhand...
  #     wait_for { SidekiqHarness.runs.size == 1 } # ...run by Sidekiq
  #   end
  #
  # The server is Sidekiq 7's embedded mode in a forked child process: Sidekiq
  # allows one embedded instance per process and never stops its heartbeat
  # thread, so running it in the test process would leave a thread behind that
  # keeps writing to Redis through the next tests. A child exits with all of it.
  module SidekiqHarness
    # Jobs Sidekiq runs in the child report here: [jid, args, pid].
    RUNS = "compat:sidekiq-runs"
    LOGGER = ::Logger.new(File::NULL)
    EXIT_TIMEOUT = 10

    class << self
      # The bundle's sidekiq gem is 7.3 beside Rails 7.2 (Ruby 3.1's stack),
      # 8.1 on today's (gemfiles/current.gemfile). Sidekiq 7 writes Float
      # seconds and wraps Active Job jobs in Rails' adapter's JobWrapper;
      # Sidekiq 8 writes Integer milliseconds and wraps them in its own.
      def sidekiq_7? = Sidekiq::VERSION.start_with?("7.")

      def client!
        Sidekiq.default_configuration.redis = {url: RedisHarness.url}
        Sidekiq.default_configuration.logger = LOGGER
      end

      # Called by a job running inside the Sidekiq child.
      def report(jid, args)
        Sidekiq.redis { |conn| conn.call("RPUSH", RUNS, JSON.generate([jid, args, ::Process.pid])) }
      end

      # What the Sidekiq child ran so far, in order.
      def runs = RedisHarness.client.call("LRANGE", RUNS, 0, -1).map { |raw| JSON.parse(raw) }

      # Runs an embedded Sidekiq server in a child process for the block; stops
      # it (Sidekiq's own graceful stop) and waits for the child to exit.
      # `setup`, when given, is called in the child with Sidekiq's config
      # before the server starts (middleware, classes of the child's own).
      def server(queues:, concurrency: 2, setup: nil)
        # Sidekiq's own client and API run on JRuby; this server needs fork.
        raise Minitest::Skip, "not on JRuby: the Sidekiq server runs in a forked child" if RUBY_ENGINE == "jruby"
        client!
        done_reader, done_writer = IO.pipe
        pid = fork { child(done_reader, done_writer, queues, concurrency, setup) }
        done_reader.close
        result = yield pid
        status = stop(done_writer, pid)
        pid = nil
        raise "embedded Sidekiq #{status}" unless status == :stopped
        result
      ensure
        stop(done_writer, pid) if pid # after a failure: clean up, keep the failure
      end

      private

      def child(done_reader, done_writer, queues, concurrency, setup)
        done_writer.close
        status = 1
        begin
          embedded = Sidekiq.configure_embed do |config|
            config.redis = {url: RedisHarness.url}
            config.queues = queues
            config.concurrency = concurrency
            config[:timeout] = 1
            config[:poll_interval_average] = 0.2 # the scheduler polls often (after its random first wait)
            setup&.call(config)
          end
          embedded.run
          done_reader.read
          embedded.stop
          status = 0
        rescue Exception => e # rubocop:disable Lint/RescueException -- report anything, then leave without at_exit hooks
          warn("embedded Sidekiq failed: #{e.class}: #{e.message}\n#{e.backtrace.first(5).join("\n")}")
        ensure
          # exit! skips at_exit: the parent's test runner and Redis harness must not run here.
          ::Process.exit!(status)
        end
      end

      # Closing the pipe tells the child to stop; returns :stopped or what went wrong.
      def stop(done_writer, pid)
        done_writer.close unless done_writer.closed?
        deadline = ::Process.clock_gettime(::Process::CLOCK_MONOTONIC) + EXIT_TIMEOUT
        until (status = ::Process.wait2(pid, ::Process::WNOHANG)&.last)
          if ::Process.clock_gettime(::Process::CLOCK_MONOTONIC) > deadline
            ::Process.kill("KILL", pid)
            ::Process.wait(pid)
            return "did not stop within #{EXIT_TIMEOUT}s"
          end
          sleep 0.02
        end
        status.success? ? :stopped : "exited with #{status.exitstatus}"
      end
    end
  end
end
