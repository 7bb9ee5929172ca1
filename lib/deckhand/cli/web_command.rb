# frozen_string_literal: true

require_relative "../../deckhand"
require_relative "command"
require_relative "../component"

module Deckhand
  class CLI
    # `deckhand web`: serves the dashboard on its own, with WEBrick.
    #
    #   deckhand web                      # http://127.0.0.1:7433/, Redis from REDIS_URL
    #   deckhand web -p 8080 -b 0.0.0.0 -r ./config/deckhand_web.rb
    #
    # It binds to 127.0.0.1 unless told otherwise: the dashboard has no login of
    # its own, so put one in front (see docs/web.md) before binding wider.
    class WebCommand
      include Command

      DEFAULT_PORT = 7433
      LOOPBACK = ["127.0.0.1", "::1", "localhost"].freeze

      def run
        options = parse
        return @out.puts(options[:help]) || 0 if options[:help]
        connect(options)
        serve(options.fetch(:host, "127.0.0.1"), options.fetch(:port, DEFAULT_PORT))
      rescue ConfigError, RedisError, LoadError, SystemCallError => e
        report("deckhand web", e)
      end

      private

      def parse
        options, = parse_options("deckhand web",
          "Usage: deckhand web [options]\n\nServes the Deckhand dashboard. Redis comes from REDIS_URL or --redis.\n\n",
          require_help: "File to load first: Deckhand.configure, Deckhand::Web.authorize, ...") do |p, options|
          p.on("-p", "--port PORT", Integer, "Port to listen on (default: #{DEFAULT_PORT}; 0 picks a free one)") { |v| options[:port] = v }
          p.on("-b", "--bind HOST", "Address to listen on (default: 127.0.0.1)") { |v| options[:host] = v }
        end
        options
      end

      def serve(host, port)
        require_relative "../web"
        handler = webrick_handler
        warn_if_exposed(host)
        stop = -> { Component.errand("web-stop", logger: Deckhand.config.logger) { handler.shutdown } }
        %w[INT TERM].each { |signal| trap(signal) { stop.call } }
        handler.run(Web, Host: host, Port: port, Logger: WEBrick::Log.new(File::NULL), AccessLog: []) do |server|
          address = server.listeners.first.addr
          @out.puts("Deckhand dashboard at http://#{url_host(address[3])}:#{address[1]}/ (Redis #{Deckhand.config.store.location}); Ctrl-C stops it")
          @out.flush
        end
        0
      end

      def webrick_handler
        require "webrick"
        begin
          require "rackup"
          Rackup::Handler::WEBrick
        rescue LoadError
          require "rack/handler/webrick" # rack 2 bundles its handlers
          Rack::Handler::WEBrick
        end
      rescue LoadError => e
        raise LoadError, "deckhand web needs the rack, rackup and webrick gems (#{e.message}): add them to your Gemfile"
      end

      def warn_if_exposed(host)
        return if LOOPBACK.include?(host)
        @err.puts("deckhand web: listening on #{host}: anyone who can reach it can retry, delete and stop jobs. " \
          "Put authentication in front of it (docs/web.md)")
      end

      def url_host(ip) = ip.include?(":") ? "[#{ip}]" : ip
    end
  end
end
