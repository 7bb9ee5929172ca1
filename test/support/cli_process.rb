# frozen_string_literal: true

require "rbconfig"
require "tmpdir"
require "fileutils"

module Deckhand
  # The real `deckhand` command as a child process, for end-to-end tests.
  #
  #   cli = Deckhand::CliProcess.start("-r", app, "-c", "2")
  #   cli.wait_for_log(/started as/)
  #   cli.signal("TERM")
  #   cli.wait_exit(timeout: 10).exitstatus # => 0
  #   cli.kill                              # always, in teardown
  #
  # The child is `ruby -w -I lib exe/deckhand ...` with this process's
  # environment, so the Bundler setup that `bundle exec` put there (RUBYOPT,
  # BUNDLE_GEMFILE) is inherited without a second `bundle exec`. It runs in a
  # fresh temporary directory, so no config/deckhand.yml or config/environment.rb
  # lying around the checkout changes what it does. REDIS_URL points at the test
  # harness' Redis unless the caller overrides it.
  class CliProcess
    ROOT = File.expand_path("../..", __dir__)
    EXE = File.join(ROOT, "exe", "deckhand")
    LIB = File.join(ROOT, "lib")

    attr_reader :pid, :status

    # dir: the directory it runs in (default: a fresh one of its own).
    def self.start(*args, env: {}, dir: nil) = new(args, env: env, dir: dir).start

    def initialize(args, env: {}, dir: nil)
      @args = args.map(&:to_s)
      @chdir = dir
      @env = {"REDIS_URL" => RedisHarness.url}.merge(env)
      @status = nil
    end

    def start
      @dir = Dir.mktmpdir("deckhand-e2e")
      @pid = ::Process.spawn(@env, RbConfig.ruby, "-w", "-I", LIB, EXE, *@args,
        in: File::NULL, out: path("stdout"), err: path("stderr"), chdir: @chdir || @dir)
      self
    end

    def stdout = read("stdout")

    def stderr = read("stderr")

    def output = stdout + stderr

    def alive?
      return false if @status
      reap(::Process::WNOHANG).nil?
    end

    # Waits until the log matches `pattern`; returns the MatchData.
    def wait_for_log(pattern, timeout: 45) # a Rails boot on a loaded machine
      poll(timeout, "a log line matching #{pattern.inspect}") do
        match = pattern.match(output)
        next match if match
        fail!("deckhand exited (#{@status.inspect}) before logging #{pattern.inspect}") unless alive?
      end
    end

    # The process identity from the boot line ("started as host:pid:nonce: ...").
    def identity
      @identity ||= wait_for_log(/started as (\S+?): /)[1]
    end

    def signal(name) = ::Process.kill(name, @pid)

    # Waits for the process to exit; returns its Process::Status.
    def wait_exit(timeout: 15)
      poll(timeout, "deckhand (pid #{@pid}) to exit") { @status || (reap(::Process::WNOHANG) && @status) }
    end

    # Kills and reaps the child if it still runs, and removes its directory.
    # Safe to call twice; every test calls it in teardown.
    def kill
      if @pid && @status.nil?
        begin
          ::Process.kill("KILL", @pid)
        rescue Errno::ESRCH
          nil
        end
        reap(0)
      end
      FileUtils.rm_rf(@dir) if @dir
      @dir = nil
    end

    # Warnings Ruby printed about Deckhand's own code (the child runs with -w).
    def own_warnings
      # vendor/ holds MRI's gems, tmp/jruby JRuby's (bin/jruby).
      stderr.lines.grep(/warning:/).select { |line| line.start_with?(ROOT) && !line.include?("/vendor/") && !line.include?("/tmp/jruby/") }
    end

    private

    def path(name) = File.join(@dir, name)

    def read(name) = @captured ? @captured[name] : slurp(name)

    def slurp(name)
      return "" unless @dir && File.exist?(path(name))
      File.binread(path(name)).force_encoding(Encoding::UTF_8).scrub
    end

    def reap(flags)
      _, status = ::Process.waitpid2(@pid, flags)
      @status = status if status
      capture if status
      status
    rescue Errno::ECHILD
      @status ||= :gone
    end

    # Keeps the output once the child is gone, since #kill removes the directory.
    def capture
      @captured = %w[stdout stderr].to_h { |name| [name, slurp(name)] }
    end

    # On JRuby each child is a JVM, which boots and warms up several times
    # slower (5 to 25 s, more at load 10 on 2 cores): every wait is longer there.
    SLOWER = (RUBY_ENGINE == "jruby") ? 4 : 1

    def poll(timeout, what)
      timeout *= SLOWER
      deadline = ::Process.clock_gettime(::Process::CLOCK_MONOTONIC) + timeout
      loop do
        result = yield
        return result if result
        fail!("timed out after #{timeout}s waiting for #{what}") if ::Process.clock_gettime(::Process::CLOCK_MONOTONIC) > deadline
        sleep 0.02
      end
    end

    def fail!(message)
      raise Minitest::Assertion, "#{message}\n--- deckhand #{@args.join(" ")} output ---\n#{output[-4000..] || output}"
    end
  end
end
