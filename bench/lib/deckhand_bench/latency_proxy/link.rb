# frozen_string_literal: true

module DeckhandBench
  class LatencyProxy
    # One proxied connection: a client socket, its upstream socket, and for
    # each direction a reader that stamps every chunk with the moment it may
    # leave and a writer that sends it then. A reader never waits on a
    # writer, so a delay line holds as many chunks as are in flight.
    #
    #   link = Link.new(client, upstream, proxy: proxy, reset_after: nil)
    #   link.start
    #   link.reset   # TCP RST to both sides
    #
    # A chunk the proxy picks to have its reply cut (LatencyProxy#cut_reply?)
    # arms the link: the next chunk back goes halfway, then both sides get a
    # reset.
    class Link
      CHUNK = 64 * 1024
      LINGER_RESET = Socket::Option.linger(true, 0)

      def initialize(client, upstream, proxy:, reset_after: nil)
        @client = client
        @upstream = upstream
        @proxy = proxy
        @reset_after = reset_after
        @lock = Mutex.new
        @closing = ConditionVariable.new
        @closed = false
        @open_ways = 2
        @threads = []
        @cut = false
      end

      def start
        [@client, @upstream].each { |s| s.setsockopt(Socket::IPPROTO_TCP, Socket::TCP_NODELAY, 1) }
        forward(@client, @upstream, :upstream)
        forward(@upstream, @client, :downstream)
        @threads << spawn("latency-proxy-reset") { reset_later } if @reset_after
        self
      end

      # Closes both sockets with SO_LINGER 0, so both peers get a TCP RST.
      def reset
        [@client, @upstream].each do |socket|
          socket.setsockopt(LINGER_RESET)
        rescue IOError, SystemCallError
          nil # already closed
        end
        close
      end

      def close
        @lock.synchronize do
          return if @closed
          @closed = true
          @closing.broadcast
        end
        @queues&.each { |queue| queue << nil }
        [@client, @upstream].each(&:close)
      end

      def join = @threads.each(&:join)

      def finished? = @threads.none?(&:alive?)

      private

      def forward(from, to, way)
        queue = Thread::Queue.new
        (@queues ||= []) << queue
        @threads << spawn("latency-proxy-#{way}-read") { read_into(queue, from, way) }
        @threads << spawn("latency-proxy-#{way}-write") { write_from(queue, to, way) }
      end

      def spawn(name)
        Thread.new do
          Thread.current.name = name
          Thread.current.report_on_exception = false
          yield
        end
      end

      def read_into(queue, from, way)
        loop do
          data = from.readpartial(CHUNK)
          @cut = true if way == :upstream && @proxy.cut_reply?(data)
          queue << [now + @proxy.delay_toward(way), data]
        end
      rescue IOError, SystemCallError # EOFError included
        queue << nil # end of this direction: the writer passes the FIN on
      end

      def write_from(queue, to, way)
        while (item = queue.pop)
          due, data = item
          # sleep may wake a little early; the delay is a floor
          while (wait = due - now).positive?
            sleep(wait)
          end
          next to.write(data) unless way == :downstream && @cut
          return cut(to, data)
        end
        to.close_write unless @closed
        finished_one_way
      rescue IOError, SystemCallError
        close # the peer is gone: end the other direction too
        finished_one_way
      end

      # Half the reply, then a reset both ways.
      def cut(to, data)
        to.write(data.byteslice(0, [data.bytesize / 2, 1].max))
        to.flush
        @proxy.tally(:cut)
        reset
        finished_one_way
      end

      def finished_one_way
        last = @lock.synchronize { (@open_ways -= 1).zero? }
        return unless last
        close
        @proxy.forget(self)
      end

      def reset_later
        deadline = now + @reset_after
        @lock.synchronize do
          until @closed || (left = deadline - now) <= 0
            @closing.wait(@lock, left)
          end
        end
        return if @closed
        @proxy.tally(:reset)
        reset
      end

      def now = ::Process.clock_gettime(::Process::CLOCK_MONOTONIC)
    end
  end
end
