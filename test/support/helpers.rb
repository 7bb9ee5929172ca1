# frozen_string_literal: true

module Deckhand
  module TestHelpers
    QUIET_LOGGER = ::Logger.new(File::NULL)

    def setup
      super
      redis.call("FLUSHALL")
      Deckhand.config = new_config
      Deckhand::TestJobs.reset
      # A server stopped by an earlier test left the process "stopping".
      Deckhand::Lifecycle.reset!
    end

    def redis = RedisHarness.client

    # Deckhand's connections wait as long as the tests' own for a reply
    # (RedisHarness::TIMEOUT); a test that gives its own `redis:` options
    # keeps redis-client's defaults.
    def new_config(**settings)
      config = Deckhand::Config.new(redis: {url: RedisHarness.url, timeout: RedisHarness::TIMEOUT}, **settings)
      config.logger = QUIET_LOGGER
      config
    end

    def jobs_in(queue) = redis.call("LRANGE", "queue:#{queue}", 0, -1).map { |raw| JSON.parse(raw) }

    def zset(name) = redis.call("ZRANGE", name, 0, -1, "WITHSCORES").map { |raw, score| [JSON.parse(raw), score.to_f] }

    # The unsettled jobs (raw payloads) in a process's in-flight record.
    def inflight_payloads(identity, queues = ["default"])
      Deckhand::Store::Inflight.payloads(RedisHarness.store, identity, queues).values.flatten
    end

    def inflight_count(identity, queues = ["default"]) = inflight_payloads(identity, queues).size

    # Whether any in-flight key of the process is left in Redis (settled lots gone too).
    def inflight_keys(identity) = redis.call("KEYS", "deckhand:inflight:#{identity}:*") + redis.call("KEYS", "deckhand:lot:#{identity}:*")

    def monotonic = ::Process.clock_gettime(::Process::CLOCK_MONOTONIC)

    # Polls until the block is truthy; fails the test after `timeout` seconds.
    # The timeout only bounds a hang: the wait ends at the event, and a loaded
    # machine (the suite runs green at load 8 on 2 cores) may take a while to it.
    def wait_for(timeout: 30, message: "condition")
      deadline = monotonic + timeout
      until (result = yield)
        flunk("timed out after #{timeout}s waiting for #{message}") if monotonic > deadline
        sleep 0.01
      end
      result
    end

    # Runs a server in this process for the block; always stops it.
    def with_server(config = Deckhand.config)
      launcher = Deckhand::Server::Launcher.new(config.freeze!, on_signal: ->(sig) { @signals_received = (@signals_received || []) << sig })
      launcher.start
      yield launcher
    ensure
      launcher&.stop
    end

    # For what the JVM cannot do (fork, C extensions, YJIT): the reason names
    # the platform, and the feature itself refuses to start there (tested).
    def skip_on_jruby(reason)
      skip("not on JRuby: #{reason}") if RUBY_ENGINE == "jruby"
    end
  end
end
