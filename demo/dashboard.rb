# frozen_string_literal: true

require "socket"

module Demo
  # The dashboard beside the demo: `deckhand web` as a child process on port
  # 7433 (or a free one when that is taken, which it says), reading the demo's Redis
  # (REDIS_URL is inherited). It loads demo/jobs.rb, as an application's
  # dashboard would, so killing a webhook from it reaches its batch.
  #
  #   dashboard = Dashboard.new(ROOT).start   # => prints "Dashboard: http://127.0.0.1:7433/"
  #   dashboard.stop                          # TERM, then reaps it
  class Dashboard
    PORT = 7433
    STOP_WAIT = 5

    def initialize(root)
      @root = root
      @log = File.join(root, "tmp/demo-web.log")
    end

    def url = "http://127.0.0.1:#{@port}/"

    def start
      @port = port
      cmd = [RbConfig.ruby, File.join(@root, "exe/deckhand"), "web", "-p", @port.to_s, "-r", File.join(@root, "demo/jobs.rb")]
      @pid = Process.spawn(*cmd, out: @log, err: @log, in: File::NULL)
      if up?
        moved = (@port == PORT) ? "" : "; port #{PORT} is taken (another demo or dashboard?)"
        puts "Dashboard: #{url} (log: tmp/demo-web.log#{moved})"
      else
        puts "The dashboard did not start (see tmp/demo-web.log); the demo goes on without it."
      end
      self
    end

    def stop
      return unless @pid
      Process.kill("TERM", @pid)
      deadline = now + STOP_WAIT
      until Process.waitpid(@pid, Process::WNOHANG)
        next sleep(0.05) if now < deadline
        Process.kill("KILL", @pid)
        Process.wait(@pid)
        break
      end
    rescue Errno::ESRCH, Errno::ECHILD
      nil
    ensure
      @pid = nil
    end

    private

    # 7433 unless something listens there already.
    def port
      TCPServer.new("127.0.0.1", PORT).close
      PORT
    rescue SystemCallError
      server = TCPServer.new("127.0.0.1", 0)
      server.addr[1].tap { server.close }
    end

    # Waits until it accepts connections, or has exited, or 15 s have passed.
    def up?
      deadline = now + 15
      loop do
        TCPSocket.new("127.0.0.1", @port).close
        return true
      rescue SystemCallError
        if Process.waitpid(@pid, Process::WNOHANG)
          @pid = nil # exited, and reaped
          return false
        end
        return false if now > deadline
        sleep 0.1
      end
    end

    def now = Process.clock_gettime(Process::CLOCK_MONOTONIC)
  end
end
