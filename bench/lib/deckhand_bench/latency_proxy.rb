# frozen_string_literal: true

require "socket"
require_relative "latency_proxy/link"

module DeckhandBench
  # A TCP proxy between clients and one upstream server (Redis) that adds
  # latency and, on demand, breaks connections: the network a production
  # Redis sits behind, on localhost. Pure Ruby, a few threads per connection.
  #
  #   proxy = DeckhandBench::LatencyProxy.start(upstream_host: "127.0.0.1", upstream_port: 6379, delay: 0.001)
  #   RedisClient.new(url: proxy.url).call("PING")  # answered at least 1 ms later than directly
  #   proxy.delay = 0.010                           # for bytes read from now on
  #   proxy.reset_rate = 0.25                       # a quarter of new connections get reset
  #   proxy.reset_all                               # resets every open connection now
  #   proxy.cut_replies(command: "LPUSH", at: [2, 4]) # cuts the replies to the 2nd and 4th LPUSH halfway
  #   proxy.stop
  #
  # `delay` is the added round trip, half on the way to the upstream and half
  # on the way back; `direction: :upstream` or `:downstream` puts all of it on
  # one way. Bytes keep their order and nothing is held back beyond its delay,
  # so pipelined traffic flows at full rate, only later.
  #
  # With `reset_rate` above zero, each new connection is, with that
  # probability, reset (TCP RST to both sides) at a random moment within
  # `reset_within` seconds of opening, wherever its traffic is at.
  #
  # `cut_replies` aims the break: the requests that start with a command
  # (RESP, as a Redis client sends it) are counted across connections, and
  # the reply to each one whose number is in `at` gets through halfway
  # before its connection is reset. Redis has run the command by then; the
  # client reads half a reply, then a reset: the lost reply of a write that
  # happened.
  class LatencyProxy
    DIRECTIONS = %i[both upstream downstream].freeze

    attr_reader :host, :port, :upstream_host, :upstream_port, :delay, :direction
    attr_accessor :reset_rate, :reset_within

    def self.start(...) = new(...).start

    def initialize(upstream_host:, upstream_port:, host: "127.0.0.1", port: 0, delay: 0.0,
      direction: :both, reset_rate: 0.0, reset_within: 1.0, random: Random.new)
      raise ArgumentError, "direction must be one of #{DIRECTIONS.join(", ")}, got #{direction.inspect}" unless DIRECTIONS.include?(direction)
      @upstream_host = upstream_host
      @upstream_port = Integer(upstream_port)
      @host = host
      @port = port
      @direction = direction
      self.delay = delay
      @reset_rate = reset_rate
      @reset_within = reset_within
      @random = random
      @links = []
      @ended = [] # links closed on their own, whose threads may still be finishing
      @lock = Mutex.new
      @counts = Hash.new(0)
      @cut_marker = nil
    end

    def start
      @server = TCPServer.new(@host, @port)
      @port = @server.addr[1]
      @acceptor = Thread.new do
        Thread.current.name = "latency-proxy-accept"
        Thread.current.report_on_exception = false
        accept_loop
      end
      self
    end

    def url(db: 0) = "redis://#{@host}:#{@port}/#{db}"

    def delay=(seconds)
      raise ArgumentError, "delay must be a number of seconds >= 0, got #{seconds.inspect}" unless seconds.is_a?(Numeric) && seconds >= 0
      @delay = seconds.to_f
    end

    # Seconds added to bytes going :upstream (client to server) or :downstream.
    def delay_toward(way)
      case @direction
      when :both then @delay / 2
      when way then @delay
      else 0.0
      end
    end

    # Connections accepted, reset (by rate or reset_all), replies cut, and
    # connections currently open.
    def stats
      @lock.synchronize { %w[accepted doomed reset cut].to_h { |k| [k, @counts[k]] }.merge("open" => @links.size) }
    end

    # From now on, counts the requests that start with `command` (the first
    # is 1) and cuts the replies to those numbered in `at` (see above).
    # `command` may be a list: a request starting with any of them counts.
    def cut_replies(command:, at:)
      @lock.synchronize do
        @cut_at = Array(at)
        @commands_seen = 0
        @cut_marker = Array(command).map { |name| "\r\n#{name}\r\n" }
      end
      self
    end

    # Called by a Link with each chunk its client sends: true when the reply
    # to it is to be cut. A request starts a chunk: a client writes one when
    # it has read the reply to the last.
    def cut_reply?(chunk)
      marker = @cut_marker or return false
      head = chunk.byteslice(0, 64)
      return false unless marker.any? { |name| head.include?(name) }
      @lock.synchronize { @cut_at.include?(@commands_seen += 1) }
    end

    # Resets every open connection; new ones are still accepted.
    def reset_all
      links = @lock.synchronize { @links.dup }
      links.each(&:reset)
      tally(:reset, links.size)
      links.size
    end

    # Stops accepting, closes every connection and joins every thread.
    def stop
      return unless @server
      @server.close
      @acceptor.join
      @lock.synchronize { @links.dup }.each(&:close)
      @lock.synchronize { @links + @ended }.each(&:join)
      @server = nil
    end

    # Called by a Link once both of its directions are done.
    # A link that closed on its own; stop still joins its threads.
    def forget(link)
      @lock.synchronize do
        @links.delete(link)
        @ended.reject!(&:finished?)
        @ended << link
      end
    end

    # Counts an event for #stats (links count their own resets).
    def tally(name, by = 1) = @lock.synchronize { @counts[name.to_s] += by }

    private

    def accept_loop
      loop do
        client = @server.accept
        tally(:accepted)
        connect(client)
      end
    rescue IOError, Errno::EBADF
      nil # the server socket was closed by #stop
    end

    def connect(client)
      upstream = TCPSocket.new(@upstream_host, @upstream_port)
      reset_after = (@random.rand * @reset_within if @reset_rate.positive? && @random.rand < @reset_rate)
      link = Link.new(client, upstream, proxy: self, reset_after: reset_after)
      @lock.synchronize { @links << link }
      tally(:doomed) if reset_after
      link.start
    rescue SystemCallError
      client.close # the upstream is down: the client sees the connection close
    end
  end
end
