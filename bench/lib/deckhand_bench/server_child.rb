# frozen_string_literal: true

require_relative "failure"

module DeckhandBench
  # A benchmarked server, Deckhand's or Sidekiq's, as a child process with
  # its output in a log file. The bench waits for the report its probe
  # pushes when the last expected job is done.
  #
  #   child = ServerChild.new([ruby, exe, "-r", app], env: env, dir: dir, log: "deckhand.log").start
  #   json = child.wait_report(redis, "bench:finished", timeout: 120) { |elapsed| print "." }
  #   child.stop
  class ServerChild
    TAIL_BYTES = 2_000

    attr_reader :pid, :log

    def initialize(command, env:, dir:, log:)
      @command = command.map(&:to_s)
      @env = env
      @dir = dir
      @log = log
    end

    def start
      @pid = ::Process.spawn(@env, *@command, chdir: @dir, in: File::NULL, out: @log, err: [:child, :out])
      @started = monotonic
      self
    end

    # BLPOPs `key` until a value arrives and returns it; yields the seconds
    # since the start about once a second meanwhile. Raises Failure if the
    # process exits first or `timeout` seconds pass.
    def wait_report(redis, key, timeout:)
      deadline = monotonic + timeout
      loop do
        reply = redis.blocking_call(3, "BLPOP", key, 1)
        return reply[1] if reply
        check_alive!
        raise Failure, "nothing from #{name} in #{timeout} s; log: #{log_tail}" if monotonic > deadline
        yield monotonic - @started if block_given?
      end
    end

    def check_alive!
      return unless @pid && ::Process.waitpid(@pid, ::Process::WNOHANG)
      status = $?
      @pid = nil
      raise Failure, "#{name} exited (#{status}); log: #{log_tail}"
    end

    # TERM, as a deploy would; KILL if it has not exited after `timeout`.
    def stop(timeout: 30)
      return unless @pid
      ::Process.kill("TERM", @pid)
      deadline = monotonic + timeout
      until ::Process.waitpid(@pid, ::Process::WNOHANG)
        if monotonic > deadline
          ::Process.kill("KILL", @pid)
          ::Process.wait(@pid)
          break
        end
        sleep 0.02
      end
    rescue Errno::ESRCH, Errno::ECHILD
      nil
    ensure
      @pid = nil
    end

    def log_tail
      return "(no log)" unless File.exist?(@log)
      text = File.binread(@log)
      (text.bytesize > TAIL_BYTES) ? "...#{text[-TAIL_BYTES..]}" : text
    end

    private

    def name = File.basename(@log, ".log")

    def monotonic = ::Process.clock_gettime(::Process::CLOCK_MONOTONIC)
  end
end
