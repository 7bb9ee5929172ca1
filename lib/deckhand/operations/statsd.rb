# frozen_string_literal: true

require "socket"

module Deckhand
  module Operations
    # Sends job events to StatsD or DogStatsD over UDP with Sidekiq Pro's
    # metric names: jobs.count, jobs.success or jobs.failure (counters) and
    # jobs.perform (a timing in ms), tagged worker:<class> and queue:<name>,
    # all three in one datagram. Sending never blocks a job: a full socket
    # buffer or an absent agent drops the datagram.
    #
    #   statsd = Statsd.new(Deckhand::Config::Statsd.new(port: 8125, prefix: "sidekiq"))
    #   statsd.job("HardJob", "default", 0.042, false)
    #   # => "sidekiq.jobs.count:1|c|#worker:HardJob,queue:default\n..."
    class Statsd
      def initialize(settings)
        @prefix = settings.prefix ? "#{settings.prefix}." : ""
        @tags = settings.tags
        @socket = UDPSocket.new(Addrinfo.udp(settings.host, settings.port).afamily)
        @socket.connect(settings.host, settings.port)
        @lock = Mutex.new
      rescue SocketError, SystemCallError => e
        raise ConfigError, "statsd: cannot send to #{settings.host}:#{settings.port} (#{e.message}); check the host and port"
      end

      def job(klass, queue, seconds, failed)
        tags = tag_text("worker:#{clean(klass)}", "queue:#{clean(queue)}")
        send_packet("#{@prefix}jobs.count:1|c#{tags}\n" \
          "#{@prefix}jobs.#{failed ? "failure" : "success"}:1|c#{tags}\n" \
          "#{@prefix}jobs.perform:#{(seconds * 1000).round(3)}|ms#{tags}")
      end

      # Reaper events: jobs.recovered and jobs.poison counters.
      def event(name, count)
        metric = {recovered: "jobs.recovered", poison_pill: "jobs.poison"}[name] or return
        send_packet("#{@prefix}#{metric}:#{count}|c#{tag_text}")
      end

      def close = @socket.close

      private

      def tag_text(*extra)
        all = @tags + extra
        all.empty? ? "" : "|##{all.join(",")}"
      end

      # Tag values may not hold the separators of the line format.
      def clean(text) = text.to_s.gsub(/[,|#\s:]/, "_")

      def send_packet(packet)
        @lock.synchronize { @socket.sendmsg_nonblock(packet, exception: false) }
      rescue IOError, SystemCallError
        nil # no agent listening (ECONNREFUSED from an earlier datagram), or closed: metrics are best effort
      end
    end
  end
end
