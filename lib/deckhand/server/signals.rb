# frozen_string_literal: true

module Deckhand
  module Server
    # Turns signals into launcher actions on the main thread (a trap handler may
    # not take locks, so it only writes the signal's name to a pipe). The
    # `deckhand` command and each swarm worker run one.
    #
    #   signals = Signals.new(launcher, logger)
    #   signals.trap
    #   launcher.start
    #   signals.wait_for_stop   # => :stop on INT or TERM, :fatal when the server gave up
    class Signals
      HANDLED = %w[INT TERM TSTP TTIN].freeze

      def initialize(launcher, logger)
        @launcher = launcher
        @logger = logger
        @reader, @writer = IO.pipe
      end

      def trap
        HANDLED.each do |name|
          Signal.trap(name) { @writer.write_nonblock("#{name}\n", exception: false) }
        end
      end

      # The server gave up (a part of it kept crashing) and has stopped:
      # wait_for_stop returns :fatal. Safe from any thread.
      def fatal! = @writer.write_nonblock("FATAL\n", exception: false)

      # Blocks until INT or TERM (returns :stop) or a fatal failure (:fatal);
      # acts on the other signals meanwhile.
      def wait_for_stop
        while (line = @reader.gets)
          case line.chomp
          when "FATAL" then return :fatal
          when "INT", "TERM"
            @logger.info("received #{line.chomp}: stopping (timeout #{@launcher.config.timeout}s)")
            return :stop
          when "TSTP" then @launcher.quiet
          when "TTIN" then dump_threads
          end
        end
      end

      private

      def dump_threads
        Thread.list.each do |thread|
          @logger.warn("thread #{thread.name || thread.object_id}: #{thread.status}")
          (thread.backtrace || ["<no backtrace>"]).each { |frame| @logger.warn("    #{frame}") }
        end
      end
    end
  end
end
