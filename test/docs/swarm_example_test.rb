# frozen_string_literal: true

require_relative "../swarm/swarm_helper"
require_relative "doc_examples"

# The swarm guide's on_worker_boot example in an application run by a real
# `deckhand -P 2`: its hook runs once in each forked worker. The stand-ins
# for StatsD and Rails.logger write what they are told to Redis, where the
# test reads it.
class DocsSwarmExampleTest < Minitest::Test
  include Deckhand::SwarmHelpers

  def app_file
    block = Deckhand::DocExamples.fetch("swarm-on-worker-boot")
    dir = Dir.mktmpdir("deckhand-docs-swarm")
    (@config_dirs ||= []) << dir
    path = File.join(dir, "app.rb")
    File.write(path, <<~RUBY)
      require "deckhand/swarm"

      module StatsD
        def self.reconnect = DocsRedis.call("RPUSH", "docs:statsd", Process.pid.to_s)
      end

      module Rails
        def self.logger = self

        def self.info(line) = DocsRedis.call("RPUSH", "docs:log", line)
      end

      module DocsRedis
        def self.call(*command) = RedisClient.new(url: ENV.fetch("REDIS_URL")).then { |r| r.call(*command).tap { r.close } }
      end

      #{block.code}
    RUBY
    path
  end

  def teardown
    (@config_dirs || []).each { |dir| FileUtils.rm_rf(dir) }
    super
  end

  def test_each_worker_runs_the_boot_hook
    cli = deckhand("-P", "2", "-c", "1", app: app_file)
    workers = wait_for_workers(cli, 2)
    assert_equal ["worker 0 ready", "worker 1 ready"], redis.call("LRANGE", "docs:log", 0, -1).sort
    assert_equal workers.sort, redis.call("LRANGE", "docs:statsd", 0, -1).map(&:to_i).sort, "StatsD reconnected in each worker"
    cli.signal("TERM")
    assert_equal 0, cli.wait_exit(timeout: 15).exitstatus
  end
end
