# frozen_string_literal: true

require "socket"
require_relative "resp_frames"

module Deckhand
  # A TCP proxy in front of a Redis that reads the traffic as RESP and, when
  # armed, closes a client's connection at the command chosen: in the
  # middle of the reply Redis sent after it ran it (for a command queued in
  # MULTI, the reply of the EXEC that runs it: Redis did the work, the
  # client never learns it), or before the command reaches Redis (it never
  # runs). Every other byte passes through as it came.
  #
  #   proxy = Deckhand::CutReplyProxy.start(port: Deckhand::RedisHarness.server.port)
  #   proxy.cut_reply_to { |command| command.first.casecmp?("LPUSH") && (seen += 1) == 3 }
  #   RedisClient.new(url: proxy.url).call("LPUSH", "q", "a")   # the third LPUSH raises ConnectionError
  #   proxy.cut_request_at { |command| command.first.casecmp?("LPUSH") }  # the next LPUSH never reaches Redis
  #   proxy.cuts       # => 2
  #   proxy.refuse = true   # from now on each connection is closed as it opens, until set back
  #   proxy.stop
  #
  # The block sees each command once, in the order the client sent them,
  # and returns true for the one to cut at; once cut, the proxy is disarmed.
  # (A command that spans several reads of the socket has its first bytes
  # forwarded before it is known whole: Redis holds a part of it, which it
  # drops with the connection.)
  class CutReplyProxy
    attr_reader :cuts
    attr_accessor :refuse

    def self.start(...) = new(...).start

    def initialize(port:, host: "127.0.0.1")
      @upstream = [host, port]
      @lock = Mutex.new
      @chooser = nil
      @cuts = 0
      @refuse = false
      @threads = []
      @sockets = []
    end

    def start
      @server = TCPServer.new("127.0.0.1", 0)
      @acceptor = Thread.new { accept_loop }
      self
    end

    def port = @server.addr[1]

    def url = "redis://127.0.0.1:#{port}/0"

    # Arms the proxy: the block chooses the command whose reply is cut.
    def cut_reply_to(&chooser) = arm(:reply, chooser)

    # Arms the proxy: the block chooses the command the connection is cut
    # before (the rest of it, and what follows, never reach Redis).
    def cut_request_at(&chooser) = arm(:request, chooser)

    def armed? = @lock.synchronize { !@chooser.nil? }

    def stop
      @server.close
      @acceptor.join
      @lock.synchronize { @sockets.dup }.each { |socket| close(socket) }
      @threads.each(&:join)
    end

    private

    def arm(mode, chooser)
      @lock.synchronize do
        @mode = mode
        @chooser = chooser
      end
      self
    end

    def accept_loop
      loop do
        client = @server.accept
        next close(client) if @refuse
        upstream = TCPSocket.new(*@upstream)
        @lock.synchronize { @sockets.push(client, upstream) }
        link(client, upstream)
      end
    rescue IOError, SystemCallError
      nil # the server socket was closed by #stop
    end

    # One connection: the commands read on the way up say which reply to
    # cut (its index among the replies); the replies are counted on the way down.
    def link(client, upstream)
      target = Queue.new # the index of the reply to cut, once chosen
      @threads << Thread.new { forward_commands(client, upstream, target) }
      @threads << Thread.new { forward_replies(upstream, client, target) }
    end

    def forward_commands(client, upstream, target)
      frames = RespFrames.new(commands: true)
      index = -1
      queued = nil # while in MULTI: whether a queued command was chosen
      loop do
        chunk = client.readpartial(65_536)
        from = frames.offset
        frames.feed(chunk).each do |start, _, command|
          index += 1
          name = command.first.to_s.upcase
          if name == "MULTI"
            queued = false
          elsif %w[EXEC DISCARD].include?(name) && !queued.nil?
            target << index if queued
            queued = nil
          elsif (mode = choose(command)) == :request
            return cut_at(upstream, client, chunk, from, start)
          elsif mode && queued.nil?
            target << index
          elsif mode
            queued = true # cut the reply of the EXEC that runs it
          end
        end
        upstream.write(chunk)
      end
    rescue IOError, SystemCallError
      close(upstream)
    end

    def forward_replies(upstream, client, target)
      frames = RespFrames.new
      index = -1
      cut = nil
      loop do
        chunk = upstream.readpartial(65_536)
        from = frames.offset
        frames.feed(chunk).each do |start, finish, _|
          index += 1
          cut ||= target.pop unless target.empty?
          next unless index == cut
          return cut_at(client, upstream, chunk, from, [start + ((finish - start) / 2), start + 1].max)
        end
        client.write(chunk)
      end
    rescue IOError, SystemCallError
      close(client)
    end

    # Sends `to` the bytes before `at` (a position in the stream; the chunk
    # begins at `from`), then closes both sides.
    def cut_at(to, other, chunk, from, at)
      to.write(chunk.byteslice(0, at - from)) if at > from
      @lock.synchronize { @cuts += 1 }
      close(to)
      close(other)
    end

    # The mode the proxy was armed with when the chooser picks `command`
    # (it is disarmed then), else nil.
    def choose(command)
      @lock.synchronize do
        next nil unless @chooser&.call(command)
        @chooser = nil
        @mode
      end
    end

    def close(socket)
      socket.close
    rescue IOError
      nil
    end
  end
end
