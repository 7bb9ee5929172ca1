# frozen_string_literal: true

require "socket"

module Deckhand
  # A local HTTP server that answers no request until `gate` connections are
  # open at once (or 20 s pass): a client that reaches the gate made its
  # requests concurrently. One thread per connection; #close ends them all.
  class GatedHttpServer
    attr_reader :widest

    def initialize(gate)
      @gate = gate
      @server = TCPServer.new("127.0.0.1", 0)
      @lock = Mutex.new
      @changed = ConditionVariable.new
      @open = @widest = 0
      @threads = []
      @acceptor = Thread.new { accept_loop }
    end

    def port = @server.addr[1]

    def close
      @server.close
      @acceptor.join(5)
      @threads.each { |t| t.join(5) }
    end

    private

    def accept_loop
      loop { @threads << Thread.new(@server.accept) { |socket| answer(socket) } }
    rescue IOError, Errno::EBADF
      nil
    end

    def answer(socket)
      nil until socket.gets.to_s.strip.empty? # the request line and headers
      wait_at_gate
      socket.write("HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok")
    ensure
      socket.close
    end

    def wait_at_gate
      @lock.synchronize do
        @open += 1
        @widest = [@widest, @open].max
        @changed.broadcast
        deadline = ::Process.clock_gettime(::Process::CLOCK_MONOTONIC) + 20
        while @widest < @gate && (left = deadline - ::Process.clock_gettime(::Process::CLOCK_MONOTONIC)) > 0
          @changed.wait(@lock, left)
        end
      end
    end
  end
end
