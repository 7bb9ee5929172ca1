# frozen_string_literal: true

require "socket"
require "io/wait"
require_relative "../component"

module Deckhand
  module Operations
    # A very small HTTP/1.1 server on a plain TCPServer for the endpoints a
    # server process offers (Prometheus /metrics, health probes), so a server
    # never loads Rack. One request per connection, answered in turn on one
    # supervised thread; GET and HEAD only; a client that sends nothing within
    # READ_TIMEOUT is dropped. The port is bound when it is built, so a taken
    # port fails the boot with a clear error.
    #
    #   listener = HttpListener.new("health", Config::Address.new("127.0.0.1", 7434), logger: logger) do |path|
    #     path == "/live" ? [200, "text/plain", "ok\n"] : [404, "text/plain", "not found\n"]
    #   end
    #   listener.start
    #   listener.port    # => 7434
    #   listener.close   # stops the thread and the socket
    class HttpListener < Component
      READ_TIMEOUT = 2
      MAX_REQUEST = 8 * 1024
      REASONS = {200 => "OK", 400 => "Bad Request", 404 => "Not Found", 405 => "Method Not Allowed",
                 500 => "Internal Server Error", 503 => "Service Unavailable"}.freeze

      def initialize(name, address, logger:, &handler)
        super("#{name}-http", logger: logger)
        @handler = handler
        @server = TCPServer.new(address.host, address.port)
        @port = @server.addr[1]
        @wake_reader, @wake_writer = IO.pipe
      rescue SocketError, SystemCallError => e
        raise ConfigError, "#{name}: cannot listen on #{address} (#{e.message}); choose another port or address"
      end

      attr_reader :port

      def close
        stop
        join(READ_TIMEOUT + 1)
        [@server, @wake_reader, @wake_writer].each { |io| io.close unless io.closed? }
      end

      private

      def wake
        @wake_writer.write_nonblock(".", exception: false)
      rescue IOError
        nil
      end

      def run
        until stopping?
          ready, = IO.select([@server, @wake_reader])
          next unless ready.include?(@server)
          client = @server.accept_nonblock(exception: false)
          serve(client) unless client == :wait_readable
        end
      end

      def serve(client)
        request = read_head(client)
        verb, target = request&.lines&.first&.split(" ", 3)
        status, type, body = if target.nil?
          [400, "text/plain", "bad request\n"]
        elsif !%w[GET HEAD].include?(verb)
          [405, "text/plain", "only GET and HEAD\n"]
        else
          answer(target.split("?", 2).first)
        end
        client.write("HTTP/1.1 #{status} #{REASONS.fetch(status, "Unknown")}\r\ncontent-type: #{type}\r\n" \
          "content-length: #{body.bytesize}\r\ncache-control: no-store\r\nconnection: close\r\n\r\n")
        client.write(body) unless verb == "HEAD"
      rescue IOError, SystemCallError
        nil # the client went away
      ensure
        client.close
      end

      def answer(path)
        @handler.call(path)
      rescue => e
        @logger.error("#{name}: #{path} failed: #{e.class}: #{e.message}")
        [500, "text/plain", "internal error\n"]
      end

      # The request line and headers (bodies are not read), or nil.
      def read_head(client)
        head = +""
        deadline = Monotonic.now + READ_TIMEOUT
        until head.include?("\r\n\r\n") || head.include?("\n\n")
          return nil if head.bytesize > MAX_REQUEST
          left = deadline - Monotonic.now
          return nil unless left.positive? && client.wait_readable(left)
          chunk = client.read_nonblock(4096, exception: false)
          return nil if chunk.nil?
          head << chunk unless chunk == :wait_readable
        end
        head
      end
    end
  end
end
