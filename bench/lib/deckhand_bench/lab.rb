# frozen_string_literal: true

require "rbconfig"
require "tmpdir"
require "fileutils"
require "open3"
require_relative "../../../lib/deckhand/dev_redis"
require_relative "server_child"

module DeckhandBench
  # Where a benchmark runs: one fresh private redis-server (no persistence),
  # a scratch directory for logs, and the way child processes are started
  # (the same Ruby, YJIT on or off for all of them, the same Bundler setup).
  #
  #   DeckhandBench::Lab.open(yjit: true) do |lab|
  #     lab.fresh!
  #     child = lab.server(system, system.server(threads: 10, queues: ["bench"]), expect: 1000)
  #   end
  class Lab
    attr_reader :redis, :dir, :yjit

    def self.open(yjit:)
      lab = new(yjit: yjit).start
      yield lab
    ensure
      lab&.close
    end

    def initialize(yjit:)
      @yjit = yjit
      @count = 0
    end

    def start
      @dir = Dir.mktmpdir("deckhand-bench")
      @redis_server = Deckhand::DevRedis.start(dir: File.join(@dir, "redis"), persistent: false)
      @redis = RedisClient.new(url: url, timeout: 30)
      self
    end

    def close
      @redis&.close
      @redis_server&.stop
      FileUtils.rm_rf(@dir) if @dir
    end

    def url = @redis_server.url

    def port = @redis_server.port

    # "redis 7.0.15", "valkey 8.1.1" (DECKHAND_REDIS_SERVER picks the binary).
    def server_version = Deckhand::DevRedis.server_version(@redis.call("INFO", "server"))

    # Empties Redis and its script cache: every run starts from the same state.
    def fresh!
      @redis.call("FLUSHALL")
      @redis.call("SCRIPT", "FLUSH")
    end

    # Starts a server child; `redis_url` is where it works (the proxy, say),
    # its probe always reports straight to this lab's Redis.
    def server(system, argv, expect:, redis_url: url, extra_env: {})
      @count += 1
      log = File.join(@dir, "#{@count}-#{system.name}.log")
      ServerChild.new([*ruby, *argv], env: env(redis_url, expect).merge(extra_env), dir: @dir, log: log).start
    end

    # Runs a Ruby script to completion; returns its standard output.
    def run(script, *args, redis_url: url, env: {})
      out, err, status = Open3.capture3(env(redis_url, 0).merge(env), *ruby, script, *args.map(&:to_s), chdir: @dir)
      raise Failure, "#{File.basename(script)} failed (#{status}): #{err[-2000..] || err}" unless status.success?
      out
    end

    def ruby = [RbConfig.ruby, *("--yjit" if @yjit)]

    private

    def env(redis_url, expect)
      env = {"REDIS_URL" => redis_url, "BENCH_REDIS_URL" => url, "BENCH_EXPECT" => expect.to_s, "APP_ENV" => "production"}
      env.merge(bundler_env)
    end

    # Children see the bundle this process runs in, even when it was set up
    # by `require "bundler/setup"` rather than `bundle exec`.
    def bundler_env
      return {} unless defined?(::Bundler) && ::Bundler.respond_to?(:default_gemfile)
      rubyopt = ENV["RUBYOPT"].to_s
      rubyopt = "#{rubyopt} -rbundler/setup".strip unless rubyopt.include?("bundler/setup")
      {"RUBYOPT" => rubyopt, "BUNDLE_GEMFILE" => ::Bundler.default_gemfile.to_s}
    rescue ::Bundler::GemfileNotFound
      {}
    end
  end
end
