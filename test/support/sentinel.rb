# frozen_string_literal: true

module Deckhand
  # A real Redis Sentinel (redis-server --sentinel) watching one primary
  # under a name, for the tests of docs/redis.md's Sentinel section. Its
  # config file lives in `dir` (Sentinel rewrites it).
  #
  #   sentinel = Sentinel.start(dir: dir, primary_port: primary.port)
  #   sentinel.port                                          # for redis: {sentinels: [{host:, port:}]}
  #   sentinel.call("SENTINEL", "get-master-addr-by-name", "mymaster")
  #   sentinel.stop
  class Sentinel
    NAME = "mymaster"

    attr_reader :port

    # Starts it and waits until it names the primary.
    def self.start(...) = new(...).start

    # failover: quick failure detection and failover timeouts, for a test
    # that fails the primary over.
    def initialize(dir:, primary_port:, failover: false)
      @dir = dir
      @primary_port = primary_port
      @failover = failover
      @port = DevRedis.free_port
    end

    def start
      conf = File.join(@dir, "sentinel.conf")
      lines = ["port #{@port}", "bind 127.0.0.1", "dir #{@dir}", "sentinel monitor #{NAME} 127.0.0.1 #{@primary_port} 1"]
      lines += ["sentinel down-after-milliseconds #{NAME} 1000", "sentinel failover-timeout #{NAME} 10000"] if @failover
      File.write(conf, lines.join("\n") + "\n")
      @pid = ::Process.spawn("redis-server", conf, "--sentinel", out: File::NULL, err: File::NULL)
      @client = RedisClient.new(host: "127.0.0.1", port: @port, connect_timeout: 0.2)
      self
    end

    # A command to the Sentinel; nil while it does not answer yet.
    def call(*command)
      @client.call(*command)
    rescue RedisClient::Error
      nil
    end

    # The primary's port as the Sentinel names it now, or nil.
    def primary_port = call("SENTINEL", "get-master-addr-by-name", NAME)&.last&.to_i

    # Whether it knows a replica of the primary (a failover needs one).
    def replica? = (call("SENTINEL", "replicas", NAME) || []).any? { |replica| replica["flags"] == "slave" }

    def stop
      @client&.close
      return unless @pid
      ::Process.kill("TERM", @pid)
      ::Process.wait(@pid)
      @pid = nil
    end
  end
end
