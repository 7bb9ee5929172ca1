# frozen_string_literal: true

require "test_helper"
require "socket"
require "tmpdir"
require "deckhand/operations/systemd"

# The systemd watchdog is pinged only while the process is live: with Redis
# gone the pings stop (and the status says why), and they resume with it.
class WatchdogTest < Minitest::Test
  def setup
    super
    skip_on_jruby("systemd's socket is a UNIX datagram socket, which JRuby cannot open; there it refuses (test_jruby_refuses_systemd_notification)")
    @dir = Dir.mktmpdir("deckhand-watchdog")
    @socket = Socket.new(:UNIX, :DGRAM)
    @socket.bind(Socket.sockaddr_un(File.join(@dir, "notify")))
    @received = []
  end

  def teardown
    @systemd&.stopping
    @launcher&.stop
    @redis&.stop
    @socket&.close
    FileUtils.rm_rf(@dir) if @dir
    super
  end

  def messages
    while (message = @socket.recv_nonblock(4096, exception: false)) != :wait_readable
      @received << message
    end
    @received
  end

  def test_pings_stop_while_redis_is_unreachable_and_resume
    @redis = Deckhand::DevRedis.new(dir: @dir, persistent: false).start
    config = new_config(redis: {url: @redis.url}, heartbeat_interval: 0.1, heartbeat_ttl: 2, timeout: 1)
    @launcher = Deckhand::Server::Launcher.new(config.freeze!, on_signal: ->(_) {}).start
    @systemd = Deckhand::Operations::Systemd.new(File.join(@dir, "notify"), @launcher, watchdog_usec: 100_000).ready
    wait_for(message: "pings") { messages.count("WATCHDOG=1") >= 2 }
    port = @redis.port
    @redis.stop
    wait_for(message: "the unhealthy status") { messages.any? { |m| m.include?("STATUS=unhealthy, not pinging the watchdog: Redis unreachable") } }
    pings = messages.count("WATCHDOG=1")
    wait_for(message: "a second unhealthy status") { messages.count { |m| m.start_with?("STATUS=unhealthy") } >= 2 }
    assert_equal pings, messages.count("WATCHDOG=1"), "no ping while unhealthy"
    @redis = Deckhand::DevRedis.new(dir: @dir, port: port, persistent: false).start
    wait_for(message: "pings again") { messages.count("WATCHDOG=1") > pings }
  end

  def test_watchdog_usec_is_for_the_named_process_only
    assert_equal 2_000_000, Deckhand::Operations::Systemd.watchdog_usec("WATCHDOG_USEC" => "2000000")
    assert_equal 2_000_000, Deckhand::Operations::Systemd.watchdog_usec("WATCHDOG_USEC" => "2000000", "WATCHDOG_PID" => ::Process.pid.to_s)
    assert_nil Deckhand::Operations::Systemd.watchdog_usec("WATCHDOG_USEC" => "2000000", "WATCHDOG_PID" => "1")
    assert_nil Deckhand::Operations::Systemd.watchdog_usec("WATCHDOG_USEC" => "soon")
    assert_nil Deckhand::Operations::Systemd.watchdog_usec({})
  end
end
