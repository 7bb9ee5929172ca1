# frozen_string_literal: true

require_relative "e2e_helper"
require "socket"

# `deckhand` under systemd's Type=notify protocol, with a real notify socket
# standing in for systemd: READY=1 after boot, WATCHDOG=1 pings, STOPPING=1
# on TERM.
class SystemdTest < Minitest::Test
  include Deckhand::E2EHelpers

  def setup
    super
    skip_on_jruby("systemd's socket is a UNIX datagram socket, which JRuby cannot open; there it refuses (test/unit/operations/systemd_refusal_test.rb)")
    @dir = Dir.mktmpdir("deckhand-systemd")
  end

  def teardown
    @socket&.close
    FileUtils.rm_rf(@dir) if @dir
    super
  end

  def listen(path)
    @socket = Socket.new(:UNIX, :DGRAM)
    @socket.bind(Socket.sockaddr_un(path))
    @received = []
  end

  # Every datagram received so far.
  def messages
    while (message = @socket.recv_nonblock(4096, exception: false)) != :wait_readable
      @received << message
    end
    @received
  end

  def test_ready_watchdog_and_stopping_on_a_real_notify_socket
    listen(File.join(@dir, "notify"))
    cli = boot("-c", "1", env: {"NOTIFY_SOCKET" => File.join(@dir, "notify"), "WATCHDOG_USEC" => "200000"})
    ready = wait_for(message: "READY=1") { messages.find { |m| m.start_with?("READY=1") } }
    assert_includes ready.lines.map(&:chomp), "MAINPID=#{cli.pid}"
    wait_for(message: "three watchdog pings") { messages.count("WATCHDOG=1") >= 3 }
    refute messages.any? { |m| m.start_with?("STOPPING=1") }
    cli.signal("TERM")
    assert_equal 0, cli.wait_exit.exitstatus
    stopping = messages.index { |m| m.start_with?("STOPPING=1") }
    assert stopping, "STOPPING=1 sent: #{messages.inspect}"
    assert_operator stopping, :>, messages.index(ready)
  end

  def test_abstract_socket_and_no_watchdog_without_watchdog_usec
    name = "deckhand-test-#{::Process.pid}-#{rand(1 << 30)}"
    listen("\0#{name}")
    cli = boot("-c", "1", env: {"NOTIFY_SOCKET" => "@#{name}"})
    wait_for(message: "READY=1") { messages.any? { |m| m.start_with?("READY=1") } }
    cli.signal("TERM")
    assert_equal 0, cli.wait_exit.exitstatus
    assert messages.any? { |m| m.start_with?("STOPPING=1") }
    assert_equal 0, messages.count("WATCHDOG=1")
  end
end
