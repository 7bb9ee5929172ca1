# frozen_string_literal: true

require "test_helper"
require "open3"

module Deckhand
  # DECKHAND_REDIS_SERVER picks the server binary every DevRedis runs (the
  # suite's, the torture suite's, the benchmarks', the development one), and
  # a server names itself by its own name and version: Valkey's INFO carries
  # the Redis version it is compatible with beside its own.
  class DevRedisServerChoiceTest < Minitest::Test
    def setup
      super
      @dir = Dir.mktmpdir("deckhand-server-choice")
      @saved = ENV.fetch(DevRedis::CHOICE, nil)
    end

    def teardown
      ENV[DevRedis::CHOICE] = @saved
      FileUtils.rm_rf(@dir)
      super
    end

    # The harness's server is the binary the run chose, and says which
    # release it is: the same the binary itself prints (`redis-server
    # --version` says "Redis server v=7.0.15", valkey-server "Valkey server
    # v=8.1.1").
    def test_the_harness_runs_the_chosen_binary_and_names_its_release
      server = RedisHarness.server
      assert_equal DevRedis.binary, server.binary
      out, status = Open3.capture2e(server.binary, "--version")
      assert status.success?, out
      name, version = out[/\A(\w+) server v=(\S+)/, 1], out[/ v=(\S+)/, 1]
      assert_equal "#{name.downcase} #{version}", server.server_version
    end

    def test_the_choice_comes_from_the_environment
      ENV[DevRedis::CHOICE] = " valkey-server "
      assert_equal "valkey-server", DevRedis.binary
      assert_equal "valkey-server", DevRedis.new(dir: @dir).binary
      ENV[DevRedis::CHOICE] = ""
      assert_equal "redis-server", DevRedis.binary
      ENV.delete(DevRedis::CHOICE)
      assert_equal "redis-server", DevRedis.new(dir: @dir).binary
    end

    def test_a_chosen_server_that_is_missing_is_named_with_the_fix
      ENV[DevRedis::CHOICE] = "deckhand-absent-server"
      error = assert_raises(ConnectionError) { DevRedis.start(dir: @dir, persistent: false) }
      assert_equal "deckhand-absent-server (DECKHAND_REDIS_SERVER) is not installed: install it (Debian/Ubuntu: " \
        "apt-get install deckhand-absent-server), or unset DECKHAND_REDIS_SERVER to run redis-server", error.message
    end

    def test_a_name_and_version_from_either_servers_info
      valkey = "# Server\r\nredis_version:7.2.4\r\nserver_name:valkey\r\nvalkey_version:8.1.1\r\nserver_mode:standalone\r\n"
      redis = "# Server\r\nredis_version:8.0.2\r\nredis_git_sha1:00000000\r\nredis_mode:standalone\r\n"
      assert_equal "valkey 8.1.1", DevRedis.server_version(valkey)
      assert_equal "redis 8.0.2", DevRedis.server_version(redis)
    end
  end
end
