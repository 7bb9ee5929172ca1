# frozen_string_literal: true

require "socket"
require "fileutils"
require "redis_client"
require_relative "errors"
require_relative "monotonic"

module Deckhand
  # Runs a private redis-server for development, the demo and the test suite:
  # on a free port, with its files under one directory, stopped on #stop.
  #
  #   redis = Deckhand::DevRedis.start(dir: "tmp/redis")
  #   redis.url    # => "redis://127.0.0.1:40123/0"
  #   redis.stop
  #
  # Production never gets one silently: the CLI starts it only when no Redis
  # is configured, none answers on 127.0.0.1:6379, and the environment is not
  # production, and it says so in the log.
  class DevRedis
    BINARY = "redis-server"
    INSTALL_HINT = "install it (Debian/Ubuntu: apt-get install redis-server; macOS: brew install redis) " \
      "or point REDIS_URL at a running Redis"

    attr_reader :port, :dir, :pid

    def self.start(...) = new(...).start

    # True when something answers PING on host:port (or at url).
    def self.answering?(host = "127.0.0.1", port = 6379, url: nil)
      location = url ? {url: url} : {host: host, port: port}
      client = RedisClient.new(**location, connect_timeout: 0.2, read_timeout: 0.5)
      client.call("PING") == "PONG"
    rescue RedisClient::Error, ArgumentError
      false
    ensure
      client&.close
    end

    def self.free_port
      server = TCPServer.new("127.0.0.1", 0)
      server.addr[1]
    ensure
      server&.close
    end

    # ready_timeout: seconds to wait for it to answer PING before giving up
    # (and stopping it).
    def initialize(dir:, port: nil, persistent: true, extra: [], ready_timeout: 10)
      @dir = File.expand_path(dir)
      @port = port || self.class.free_port
      @persistent = persistent
      @extra = extra
      @ready_timeout = ready_timeout
    end

    def url = "redis://127.0.0.1:#{@port}/0"

    # detach: true leaves it running when this process exits (it is reaped
    # here if it ends first); stop it with #stop or, from another process,
    # by its pid.
    def start(detach: false)
      FileUtils.mkdir_p(@dir)
      args = [BINARY, "--port", @port.to_s, "--bind", "127.0.0.1", "--dir", @dir, "--save", "",
        "--appendonly", @persistent ? "yes" : "no", "--daemonize", "no", "--logfile", "redis.log", *@extra]
      @pid = ::Process.spawn(*args, in: File::NULL, out: File::NULL, err: File::NULL, pgroup: true)
      wait_until_ready
      ::Process.detach(@pid) if detach
      self
    rescue Errno::ENOENT
      raise ConnectionError, "redis-server is not installed: #{INSTALL_HINT}"
    end

    def stop
      return unless @pid
      ::Process.kill("TERM", @pid)
      ::Process.wait(@pid)
    rescue Errno::ESRCH, Errno::ECHILD
      nil
    ensure
      @pid = nil
    end

    # SIGKILL, as a crash or the OOM killer would.
    def kill
      ::Process.kill("KILL", @pid)
      ::Process.wait(@pid)
      @pid = nil
    end

    def running? = !@pid.nil?

    private

    def wait_until_ready
      deadline = Monotonic.now + @ready_timeout
      until self.class.answering?("127.0.0.1", @port)
        if ::Process.waitpid(@pid, ::Process::WNOHANG)
          log = File.join(@dir, "redis.log")
          raise ConnectionError, "redis-server exited at start: #{File.exist?(log) ? File.read(log)[-500..] : "no log"}"
        end
        if Monotonic.now > deadline
          stop # never a half-started server left running
          raise ConnectionError, "redis-server on port #{@port} did not answer within #{@ready_timeout} s"
        end
        sleep 0.02
      end
    end
  end
end
