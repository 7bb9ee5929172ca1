# frozen_string_literal: true

require "socket"

module Deckhand
  module Operations
    # Sends job events to StatsD or DogStatsD over UDP with Sidekiq Pro's
    # metric names: jobs.count, jobs.success or jobs.failure (counters) and
    # jobs.perform (a timing in ms), tagged worker:<class> and queue:<name>.
    # Counters are added up in memory and timings buffered, and the lot goes
    # out in datagrams of at most MAX_PACKET bytes when the buffer fills and
    # at every #flush (each second, from the server's Operations::Runtime),
    # so a busy process sends a datagram per dozens of jobs, not per job.
    # Sending never blocks a job: a full socket buffer or an absent agent
    # drops the datagram.
    #
    #   statsd = Statsd.new(Deckhand::Config::Statsd.new(port: 8125, prefix: "sidekiq"))
    #   statsd.job("HardJob", "default", 0.042, false)
    #   statsd.flush
    #   # => "sidekiq.jobs.count:1|c|#worker:HardJob,queue:default\nsidekiq.jobs.success:1|c|#..."
    class Statsd
      MAX_PACKET = 1432 # fits one Ethernet frame, the DogStatsD clients' default
      EVENTS = {recovered: "jobs.recovered", poison_pill: "jobs.poison"}.freeze

      def initialize(settings)
        @prefix = settings.prefix ? "#{settings.prefix}." : ""
        @tags = settings.tags
        @socket = UDPSocket.new(Addrinfo.udp(settings.host, settings.port).afamily)
        @socket.connect(settings.host, settings.port)
        @lock = Mutex.new
        @counts = Hash.new(0)
        @timings = []
        @timing_bytes = 0
        @tag_texts = {}
      rescue SocketError, SystemCallError => e
        raise ConfigError, "statsd: cannot send to #{settings.host}:#{settings.port} (#{e.message}); check the host and port"
      end

      def job(klass, queue, seconds, failed)
        ms = (seconds * 1000).round(3)
        full = @lock.synchronize do
          tags = @tag_texts[[klass, queue]] || job_tags(klass, queue)
          timing = "#{@prefix}jobs.perform:#{ms}|ms#{tags}"
          @counts[["jobs.count", tags]] += 1
          @counts[[failed ? "jobs.failure" : "jobs.success", tags]] += 1
          @timings << timing
          (@timing_bytes += timing.bytesize + 1) >= MAX_PACKET
        end
        flush if full
      end

      # Reaper events: jobs.recovered and jobs.poison counters.
      def event(name, count)
        metric = EVENTS[name] or return
        @lock.synchronize { @counts[[metric, tag_text]] += count }
      end

      # Sends what was counted and timed since the last flush.
      def flush
        lines = @lock.synchronize do
          counted = @counts.map { |(metric, tags), count| "#{@prefix}#{metric}:#{count}|c#{tags}" }
          timed = @timings
          @counts = Hash.new(0)
          @timings = []
          @timing_bytes = 0
          counted + timed
        end
        packets(lines).each { |packet| send_packet(packet) }
      end

      def close
        flush
        @socket.close
      end

      private

      def packets(lines)
        lines.each_with_object([]) do |line, out|
          if out.last && out.last.bytesize + line.bytesize + 1 <= MAX_PACKET
            out.last << "\n" << line
          else
            out << line.dup
          end
        end
      end

      # Cached per class and queue (a few hundred at most, else not kept).
      def job_tags(klass, queue)
        tags = tag_text("worker:#{clean(klass)}", "queue:#{clean(queue)}")
        @tag_texts[[klass, queue]] = tags if @tag_texts.size < 1000
        tags
      end

      def tag_text(*extra)
        all = @tags + extra
        all.empty? ? "" : "|##{all.join(",")}"
      end

      # Tag values may not hold the separators of the line format.
      def clean(text) = text.to_s.gsub(/[,|#\s:]/, "_")

      def send_packet(packet)
        @socket.sendmsg_nonblock(packet, exception: false)
      rescue IOError, SystemCallError
        nil # no agent listening (ECONNREFUSED from an earlier datagram), or closed: metrics are best effort
      end
    end
  end
end
