# frozen_string_literal: true

require "tmpdir"

module Deckhand
  # One private redis-server for the whole test run, on a free port in a temp
  # directory, no persistence. Flushed before every test; stopped at exit.
  module RedisHarness
    # Seconds a test's connection waits for a reply: on a loaded machine
    # (JRuby in CI, load 8 on 2 cores) a reply can stall past redis-client's
    # 1 s default, and what a test measures is never a connection's speed.
    TIMEOUT = 10

    # On JRuby a loaded run (the JIT compiling, a full GC, load 8 on 2 cores)
    # can hold a reply past redis-client's 1 s default, and a test builds
    # connections from a bare URL too (a second Redis, Client.via(url), a
    # job's own pool): on JRuby those wait as long as the tests' own. A test
    # that needs a short wait still says so (timeout: 0.5).
    if RUBY_ENGINE == "jruby"
      RedisClient::Config.send(:remove_const, :DEFAULT_TIMEOUT)
      RedisClient::Config.const_set(:DEFAULT_TIMEOUT, TIMEOUT.to_f)
    end

    class << self
      def server
        @server ||= begin
          dir = Dir.mktmpdir("deckhand-test-redis")
          server = DevRedis.start(dir: dir, persistent: false)
          ENV["REDIS_URL"] = server.url
          at_exit do
            server.stop
            FileUtils.rm_rf(dir)
          end
          server
        end
      end

      def url = server.url

      # The tests' own connection, for setting up and reading back.
      def client
        @client ||= RedisClient.new(url: url, timeout: TIMEOUT)
      end

      # A store on the harness' Redis, whatever the test's config points at.
      def store
        @store ||= Deckhand::Store.new({url: url, timeout: TIMEOUT}, size: 4)
      end
    end
  end
end
