# frozen_string_literal: true

require "test_helper"
require "deckhand/dev_redis/project"

module Deckhand
  # The project's development Redis: one server per data directory however
  # many processes ask at once, and never a stranger's Redis.
  class DevRedisProjectTest < Minitest::Test
    def setup
      super
      @root = Dir.mktmpdir("deckhand-project")
      @project = DevRedis::Project.new(@root)
    end

    def teardown
      @project.stop
      FileUtils.rm_rf(@root)
      super
    end

    # Four processes released at one instant: the lock lets one start the
    # server; the others wait for it and find it.
    def test_processes_asking_at_once_start_one_server
      skip_on_jruby("the four processes are forked; the lock is the operating system's, the same on every Ruby")
      gate_reader, gate_writer = IO.pipe
      results_reader, results_writer = IO.pipe
      pids = Array.new(4) do
        fork do
          gate_writer.close
          gate_reader.read(1)
          url, started = DevRedis::Project.new(@root).find_or_start
          results_writer.puts("#{url} #{started}")
          exit!(0)
        end
      end
      results_writer.close
      gate_writer.write("x" * 4)
      gate_writer.close
      results = results_reader.read.lines.map(&:split)
      pids.each { |pid| ::Process.wait(pid) }

      assert_equal 4, results.size
      assert_equal 1, results.map(&:first).uniq.size, "they were given different servers: #{results.inspect}"
      assert_equal ["false", "false", "false", "true"], results.map(&:last).sort
      assert_equal results.first.first, @project.running_url
    ensure
      [gate_reader, results_reader].each { |io| io&.close unless io&.closed? }
    end

    # A recorded address whose server is gone may since belong to another
    # Redis (here: the test suite's own): it is not used.
    def test_a_stale_address_is_not_used
      dead = ::Process.spawn("true")
      ::Process.wait(dead)
      FileUtils.mkdir_p(@project.dir)
      File.write(@project.url_file, RedisHarness.url)
      File.write(@project.pid_file, dead.to_s)

      assert_nil @project.running_url
      url, started = @project.find_or_start
      assert started
      refute_equal RedisHarness.url, url
    end

    # A server that never answers PING (here: it wants a password) is
    # stopped, not left running, when the start gives up.
    def test_a_server_that_never_answers_is_not_left_running
      redis = DevRedis.new(dir: File.join(@root, "guarded"), persistent: false, extra: ["--requirepass", "x"], ready_timeout: 0.3)
      error = assert_raises(ConnectionError) { redis.start }
      assert_includes error.message, "did not answer within 0.3 s"
      refute redis.running?
      assert_raises(Errno::ECONNREFUSED) { TCPSocket.new("127.0.0.1", redis.port).close }
    end

    def test_configured_options_and_other_environments_are_left_alone
      assert_equal({url: "redis://elsewhere:6379/1"}, DevRedis::Project.fill_in({url: "redis://elsewhere:6379/1"}, "development", root: @root))
      assert_equal({}, DevRedis::Project.fill_in({}, "production", root: @root))
      assert_equal({}, DevRedis::Project.fill_in({}, "test", root: @root))
      refute File.exist?(@project.url_file), "a development Redis was started"
    end
  end
end
