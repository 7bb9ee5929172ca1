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
  #   redis.url              # => "redis://127.0.0.1:40123/0"
  #   redis.server_version   # => "redis 7.0.15"
  #   redis.stop
  #
  # It runs redis-server, or the binary DECKHAND_REDIS_SERVER names: any
  # server that speaks Redis' protocol and takes its flags, such as Valkey
  # (DECKHAND_REDIS_SERVER=valkey-server).
  #
  # Production never gets one silently: the CLI starts it only when no Redis
  # is configured, none answers on 127.0.0.1:6379, and the environment is not
  # production, and it says so in the log.
  class DevRedis
    # The server binary run unless DECKHAND_REDIS_SERVER names another.
    BINARY = "redis-server"
    # The environment variable naming another server binary (valkey-server, a path).
    CHOICE = "DECKHAND_REDIS_SERVER"
    # What the error says to do when the binary is missing.
    INSTALL_HINT = "install it (Debian/Ubuntu: apt-get install redis-server; macOS: brew install redis) " \
      "or point REDIS_URL at a running Redis"

    attr_reader :port, :dir, :pid, :binary

    # Builds one (see #initialize) and starts it.
    #
    #   redis = Deckhand::DevRedis.start(dir: "tmp/redis", persistent: false)
    #
    # @return [DevRedis] the running server
    def self.start(...) = new(...).start

    # The server binary a new DevRedis runs: DECKHAND_REDIS_SERVER when set
    # (valkey-server, or a path), else redis-server.
    def self.binary
      choice = ENV[CHOICE]
      (choice.nil? || choice.strip.empty?) ? BINARY : choice.strip
    end

    # The binary for a tool's `--server` option: "redis" or "valkey" by
    # name, anything else as a binary or path.
    #
    #   ENV[DevRedis::CHOICE] = DevRedis.binary_for("valkey")   # => "valkey-server"
    def self.binary_for(name) = %w[redis valkey].include?(name) ? "#{name}-server" : name

    # "redis 7.0.15", "valkey 8.1.1": the server's name and own version from
    # the text of its INFO server. Valkey reports redis_version 7.2.4 (the
    # Redis it is compatible with) beside its own valkey_version.
    def self.server_version(info)
      name = info[/^server_name:(\S+)/, 1] || "redis"
      "#{name} #{info[/^#{Regexp.escape(name)}_version:(\S+)/, 1] || info[/^redis_version:(\S+)/, 1]}"
    end

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

    # A TCP port free on 127.0.0.1 now.
    def self.free_port
      server = TCPServer.new("127.0.0.1", 0)
      server.addr[1]
    ensure
      server&.close
    end

    # ready_timeout: seconds to wait for it to answer PING before giving up
    # (and stopping it).
    def initialize(dir:, port: nil, persistent: true, extra: [], ready_timeout: 10, binary: self.class.binary)
      @dir = File.expand_path(dir)
      @binary = binary
      @port = port || self.class.free_port
      @persistent = persistent
      @extra = extra
      @ready_timeout = ready_timeout
    end

    # The server's redis:// URL, database 0.
    def url = "redis://127.0.0.1:#{@port}/0"

    # detach: true leaves it running when this process exits (it is reaped
    # here if it ends first); stop it with #stop or, from another process,
    # by its pid.
    def start(detach: false)
      FileUtils.mkdir_p(@dir)
      args = [@binary, "--port", @port.to_s, "--bind", "127.0.0.1", "--dir", @dir, "--save", "",
        "--appendonly", @persistent ? "yes" : "no", "--daemonize", "no", "--logfile", "redis.log", *@extra]
      @pid = ::Process.spawn(*args, in: File::NULL, out: File::NULL, err: File::NULL, pgroup: true)
      wait_until_ready
      ::Process.detach(@pid) if detach
      self
    rescue Errno::ENOENT
      raise ConnectionError, not_installed
    end

    # This server's name and version, asked of it: "redis 7.0.15", "valkey 8.1.1".
    def server_version
      client = RedisClient.new(host: "127.0.0.1", port: @port, connect_timeout: 1, read_timeout: 5)
      self.class.server_version(client.call("INFO", "server"))
    ensure
      client&.close
    end

    # Stops the server (TERM) and waits for it; nothing when it is not running.
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

    # Whether this object started the server and has not stopped it.
    def running? = !@pid.nil?

    private

    def not_installed
      return "redis-server is not installed: #{INSTALL_HINT}" if @binary == BINARY
      fix = "install it (Debian/Ubuntu: apt-get install #{File.basename(@binary)})"
      return "#{@binary} is not installed: #{fix}" unless @binary == self.class.binary
      "#{@binary} (#{CHOICE}) is not installed: #{fix}, or unset #{CHOICE} to run redis-server"
    end

    def wait_until_ready
      deadline = Monotonic.now + @ready_timeout
      until self.class.answering?("127.0.0.1", @port)
        if ::Process.waitpid(@pid, ::Process::WNOHANG)
          log = File.join(@dir, "redis.log")
          raise ConnectionError, "#{@binary} exited at start: #{File.exist?(log) ? File.read(log)[-500..] : "no log"}"
        end
        if Monotonic.now > deadline
          stop # never a half-started server left running
          raise ConnectionError, "#{@binary} on port #{@port} did not answer within #{@ready_timeout} s"
        end
        sleep 0.02
      end
    end
  end
end
