# frozen_string_literal: true

require "socket"

module Deckhand
  module Operations
    # Sends job events to StatsD or DogStatsD over UDP with Sidekiq Pro's
    # metric names: jobs.count, jobs.success or jobs.failure (counters) and
    # jobs.perform (a timing in ms), tagged worker:<class> and queue:<name>,
    # and jobs.chunks, the chunks run (docs/chunks.md).
    # Counters are added up in memory and timings kept, per class and queue,
    # and the lot goes out in datagrams of at most MAX_PACKET bytes every
    # FLUSH_AT jobs and at every #flush (each second, from the server's
    # Operations::Runtime), so a busy process sends a datagram per dozens of
    # jobs, not per job, and a job pays for no string building.
    # Sending never blocks a job: a full socket buffer or an absent agent
    # drops the datagram.
    #
    #   statsd = StatsdReporter.new(Deckhand::Config::Statsd.new(port: 8125, prefix: "sidekiq"))
    #   statsd.job("HardJob", "default", 0.042, false)
    #   statsd.flush
    #   # => "sidekiq.jobs.count:1|c|#worker:HardJob,queue:default\nsidekiq.jobs.success:1|c|#..."
    #
    # Each look of the eviction watch (Server::Chores::EvictionWatch) goes out with
    # the next flush: the gauges redis.eviction_warnings, and per primary
    # (tag redis:<address>) redis.evicting_policy and redis.memory_used_ratio,
    # and the counter redis.evicted_keys (keys evicted since the look before).
    class StatsdReporter # :nodoc:
      MAX_PACKET = 1432 # fits one Ethernet frame, the DogStatsD clients' default
      EVENTS = {recovered: "jobs.recovered", poison_pill: "jobs.poison"}.freeze
      FLUSH_AT = 32 # timings held before a flush, whatever the clock says
      # JRuby has no sendmsg; on a connected datagram socket a write sends
      # one datagram just the same.
      SEND = (RUBY_ENGINE == "jruby") ? :write_nonblock : :sendmsg_nonblock

      # What one class on one queue did since the last flush.
      Tally = Struct.new(:tags, :success, :failure, :timings, :chunks)
      private_constant :Tally

      def initialize(settings)
        @prefix = settings.prefix ? "#{settings.prefix}." : ""
        @tags = settings.tags
        @socket = UDPSocket.new(Addrinfo.udp(settings.host, settings.port).afamily)
        @socket.connect(settings.host, settings.port)
        @lock = Mutex.new
        @tallies = {}
        @events = Hash.new(0)
        @held = 0
        @looked = [] # the last look's lines, until a flush sends them
      rescue SocketError, SystemCallError => e
        raise ConfigError, "statsd: cannot send to #{settings.host}:#{settings.port} (#{e.message}); check the host and port"
      end

      def job(klass, queue, seconds, failed)
        full = @lock.synchronize do
          tally = tally_of(klass, queue)
          failed ? tally.failure += 1 : tally.success += 1
          tally.timings << seconds
          (@held += 1) >= FLUSH_AT
        end
        flush if full
      end

      # A chunk ran: the jobs.chunks counter (its jobs count as jobs).
      def chunk(klass, queue)
        @lock.synchronize { tally_of(klass, queue).chunks += 1 }
      end

      # Reaper events: jobs.recovered and jobs.poison counters.
      def event(name, count)
        metric = EVENTS[name] or return
        @lock.synchronize { @events[metric] += count }
      end

      # An eviction watch's look (EvictionWatch::Look), sent with the next flush.
      def redis_memory(look)
        out = ["#{@prefix}redis.eviction_warnings:#{look.concerns.size}|g#{tag_text}"]
        look.nodes.each do |node|
          redis = "redis:#{clean(node.address.sub(%r{\A[a-z+]+://}, ""))}"
          out << "#{@prefix}redis.evicting_policy:#{node.evicting? ? 1 : 0}|g#{tag_text(redis, "policy:#{clean(node.policy)}")}"
          out << "#{@prefix}redis.memory_used_ratio:#{node.ratio.round(4)}|g#{tag_text(redis)}" if node.ratio
          evicted = look.evicted&.[](node.address)
          out << "#{@prefix}redis.evicted_keys:#{evicted}|c#{tag_text(redis)}" if evicted
        end
        @lock.synchronize { @looked = out }
      end

      # Sends what was counted and timed since the last flush.
      def flush
        tallies, events, looked = @lock.synchronize do
          taken = [@tallies, @events, @looked]
          @tallies = {}
          @events = Hash.new(0)
          @looked = []
          @held = 0
          taken
        end
        packets(looked + lines(tallies, events)).each { |packet| send_packet(packet) }
      end

      def close
        flush
        @socket.close
      end

      private

      def lines(tallies, events)
        out = events.map { |metric, count| "#{@prefix}#{metric}:#{count}|c#{tag_text}" }
        tallies.each_value do |by_queue|
          by_queue.each_value do |t|
            out << "#{@prefix}jobs.chunks:#{t.chunks}|c#{t.tags}" if t.chunks.positive?
            next if (t.success + t.failure).zero?
            out << "#{@prefix}jobs.count:#{t.success + t.failure}|c#{t.tags}"
            out << "#{@prefix}jobs.success:#{t.success}|c#{t.tags}" if t.success.positive?
            out << "#{@prefix}jobs.failure:#{t.failure}|c#{t.tags}" if t.failure.positive?
            t.timings.each { |seconds| out << "#{@prefix}jobs.perform:#{(seconds * 1000).round(3)}|ms#{t.tags}" }
          end
        end
        out
      end

      def packets(lines)
        lines.each_with_object([]) do |line, out|
          if out.last && out.last.bytesize + line.bytesize + 1 <= MAX_PACKET
            out.last << "\n" << line
          else
            out << line.dup
          end
        end
      end

      def tally_of(klass, queue) = (@tallies[klass] ||= {})[queue] ||= Tally.new(job_tags(klass, queue), 0, 0, [], 0)

      def job_tags(klass, queue) = tag_text("worker:#{clean(klass)}", "queue:#{clean(queue)}")

      def tag_text(*extra)
        all = @tags + extra
        all.empty? ? "" : "|##{all.join(",")}"
      end

      # Tag values may not hold the separators of the line format.
      def clean(text) = text.to_s.gsub(/[,|#\s:]/, "_")

      def send_packet(packet)
        @socket.public_send(SEND, packet, exception: false)
      rescue IOError, SystemCallError
        nil # no agent listening (ECONNREFUSED from an earlier datagram), or closed: metrics are best effort
      end
    end
  end
end
