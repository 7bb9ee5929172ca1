# frozen_string_literal: true

require_relative "e2e_helper"
require "pty"
require "io/console"

# `deckhand top` in a pseudo-terminal, as over SSH: its screen read back
# frame by frame as it refreshes, and q quits with the terminal restored.
class TopTest < Minitest::Test
  include Deckhand::E2EHelpers

  def setup
    super
    @output = +""
    @lock = Mutex.new
  end

  def teardown
    if @pid
      begin
        ::Process.kill("KILL", @pid)
        ::Process.wait(@pid)
      rescue Errno::ESRCH, Errno::ECHILD
        nil
      end
    end
    @reader_thread&.join(2)
    @terminal&.close
    super
  end

  def start_top(*args)
    # Through env(1): JRuby's PTY.spawn takes no environment hash.
    @terminal, @keyboard, @pid = PTY.spawn("env", "REDIS_URL=#{Deckhand::RedisHarness.url}", RbConfig.ruby, "-w", "-I",
      Deckhand::CliProcess::LIB, Deckhand::CliProcess::EXE, "top", "--locale", "en", *args) # in English whatever LANG says
    @terminal.winsize = [24, 100]
    @reader_thread = Thread.new do
      loop do
        chunk = @terminal.readpartial(4096)
        @lock.synchronize { @output << chunk }
      end
    rescue Errno::EIO, IOError # the child closed its terminal
      nil
    end
  end

  def output = @lock.synchronize { @output.dup }

  # The last complete frame (each begins with the cursor sent home), as plain lines.
  def screen
    frames = output.split("\e[H")
    frame = (frames.size > 2) ? frames[-2] : frames.last.to_s
    frame.gsub(/\e\[[0-9;?]*[A-Za-z]/, "").split("\r\n")
  end

  def test_a_live_view_that_refreshes_and_quits_on_q
    client = Deckhand::Client.new
    4.times { |i| client.push("class" => "E2E::CountJob", "args" => [i], "queue" => "mailers") }
    cli = boot("-c", "3", "-q", "other")
    start_top
    lines = wait_for(message: "a screen with the queue and the process") do
      shown = screen
      shown if shown.any? { |l| l.match?(/\Amailers\s+4\s+\d+\.\ds/) } && shown.any? { |l| l.match?(%r{\A\S+:#{cli.pid}\s+0/3\s+\d+MB}) }
    end
    assert_match(/\ADeckhand top  redis:/, lines[0])
    assert(lines.all? { |l| l.size <= 100 }, "lines fit the terminal's width")
    6.times { |i| client.push("class" => "E2E::CountJob", "args" => [i], "queue" => "mailers") }
    wait_for(message: "the next refresh to show the new size") { screen.any? { |l| l.match?(/\Amailers\s+10\s/) } }
    @keyboard.write("q")
    _, status = wait_for(message: "top to quit on q") { ::Process.wait2(@pid, ::Process::WNOHANG) }
    @pid = nil
    assert_equal 0, status.exitstatus
    @reader_thread.join(2)
    assert output.end_with?("\e[?25h\e[?1049l"), "the terminal's own screen and cursor are given back"
  end

  def test_sigint_and_sigterm_quit_and_give_the_terminal_back
    %w[INT TERM].each do |signal|
      @output = +""
      start_top
      wait_for(message: "the first frame") { screen.any? { |l| l.include?("[1 Overview]") } }
      ::Process.kill(signal, @pid)
      _, status = wait_for(message: "top to quit on SIG#{signal}") { ::Process.wait2(@pid, ::Process::WNOHANG) }
      @pid = nil
      assert_equal 0, status.exitstatus, "SIG#{signal} ends top as q does"
      @reader_thread.join(2)
      @terminal.close
      assert output.end_with?("\e[?25h\e[?1049l"), "the terminal given back after SIG#{signal}"
    end
  end

  def test_without_a_terminal_it_says_so
    cli = deckhand_run("top")
    assert_equal 1, cli.status.exitstatus
    assert_includes cli.stderr, "deckhand top needs a terminal (use --once for plain output)"
    once = deckhand_run("top", "--once", "--locale", "en")
    assert_equal 0, once.status.exitstatus
    assert_includes once.stdout, "QUEUE"
    refute_includes once.stdout, "q quits", "one frame has no key to quit it"
    help = deckhand_run("--help").stdout
    assert_includes help, "deckhand top "
    assert_includes help, "deckhand dev-redis cluster", "the development cluster is named where users look"
    assert_includes deckhand_run("top", "--help").stdout, "Usage: deckhand top"
  end
end
