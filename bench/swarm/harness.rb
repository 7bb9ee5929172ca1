# frozen_string_literal: true

require "bundler/setup"
require "rbconfig"
require "tmpdir"
require "deckhand"
require "deckhand/dev_redis"
require "deckhand/store/inflight"

module SwarmBench
  ROOT = File.expand_path("../..", __dir__)
  APP = File.expand_path("app.rb", __dir__)

  # A private redis-server and `deckhand` runs against it, for the swarm
  # benchmarks. Everything started here is stopped by #close.
  class Harness
    attr_reader :redis, :url

    def initialize
      @dir = Dir.mktmpdir("deckhand-swarm-bench")
      @server = Deckhand::DevRedis.start(dir: @dir, persistent: false)
      @url = @server.url
      @redis = RedisClient.new(url: @url)
    end

    def server_version = Deckhand::DevRedis.server_version(@redis.call("INFO", "server"))

    # Starts `deckhand -r app.rb *args`; returns [pid, log path].
    def deckhand(*args, env: {})
      log = File.join(@dir, "deckhand-#{Time.now.to_f}.log")
      pid = ::Process.spawn({"REDIS_URL" => @url}.merge(env), RbConfig.ruby, "-I", File.join(ROOT, "lib"),
        File.join(ROOT, "exe/deckhand"), "-r", APP, *args, out: log, err: [:child, :out], chdir: @dir)
      [pid, log]
    end

    def wait_for_log(log, pattern, count: 1, timeout: 60)
      deadline = now + timeout
      until File.read(log).scan(pattern).size >= count
        raise "timed out waiting for #{pattern.inspect} in #{log}:\n#{File.read(log)}" if now > deadline
        sleep 0.05
      end
    end

    def stop(pid)
      ::Process.kill("TERM", pid)
      ::Process.wait(pid)
    end

    def close
      @redis.close
      @server.stop
      FileUtils.rm_rf(@dir)
    end

    def now = ::Process.clock_gettime(::Process::CLOCK_MONOTONIC)

    def self.children_of(pid)
      Dir.glob("/proc/[0-9]*/stat").filter_map do |path|
        fields = File.read(path).split(") ", 2).last.split
        path[/\d+/].to_i if fields[1].to_i == pid
      rescue SystemCallError
        nil
      end.sort
    end
  end
end
