# frozen_string_literal: true

require "test_helper"
require "net/http"
require "tmpdir"

# The health endpoint of a running server: 200 while its loops run and Redis
# answers, 503 with the reason otherwise, and readiness false while quiet.
class HealthCheckTest < Minitest::Test
  def setup
    super
    @dir = Dir.mktmpdir("deckhand-health")
    @launchers = []
  end

  def teardown
    @launchers.each(&:stop)
    @server&.stop
    FileUtils.rm_rf(@dir)
    super
  end

  def launch(**settings)
    config = new_config(health_check: "127.0.0.1:0", heartbeat_interval: 0.1, heartbeat_ttl: 2, timeout: 1, **settings)
    launcher = Deckhand::Server::Launcher.new(config.freeze!, on_signal: ->(_) {})
    @launchers << launcher
    launcher.start
  end

  def probe(launcher, path)
    response = Net::HTTP.get_response(URI("http://127.0.0.1:#{launcher.operations.health_listener.port}#{path}"))
    [response.code.to_i, response.body]
  end

  def test_healthy_then_503_while_redis_is_down_and_healthy_again
    @server = Deckhand::DevRedis.new(dir: @dir, persistent: false).start
    launcher = launch(redis: {url: @server.url})
    assert_equal [200, "ok\n"], probe(launcher, "/live")
    assert_equal [200, "ok\n"], probe(launcher, "/ready")
    port = @server.port
    @server.stop
    status, body = wait_for(message: "the probe to see Redis gone") { (answer = probe(launcher, "/live"))[0] == 503 && answer }
    assert_equal 503, status
    assert_match(/Redis unreachable: no heartbeat written for \d/, body)
    assert_equal 503, probe(launcher, "/ready")[0]
    @server = Deckhand::DevRedis.new(dir: @dir, port: port, persistent: false).start
    wait_for(message: "the probe to see Redis back") { probe(launcher, "/live") == [200, "ok\n"] }
    assert_equal [200, "ok\n"], probe(launcher, "/ready")
  end

  def test_a_dead_fetcher_fails_the_probe_until_it_runs_again
    launcher = launch
    assert_equal 200, probe(launcher, "/live")[0]
    fetcher = launcher.capsules.first.fetcher
    # Fault injection: the fetcher's loop raises until the test lets it run.
    broken = true
    original = fetcher.method(:run)
    fetcher.define_singleton_method(:run) { broken ? raise(IOError, "injected fault") : original.call }
    fetcher.thread.kill
    status, body = wait_for(message: "the probe to see the fetcher down") { (answer = probe(launcher, "/live"))[0] == 503 && answer }
    assert_equal 503, status
    assert_equal "the fetcher of capsule default is not running\n", body
    broken = false
    # The fetcher crashed again at each restart while the probe was asked,
    # and its pauses grow: on a loaded machine the next may be the longest.
    wait_for(timeout: Deckhand::Component::DELAYS.last + 30, message: "the restarted fetcher") { probe(launcher, "/live") == [200, "ok\n"] }
    jid = Deckhand::Client.new.push("class" => "RecordJob", "args" => [1])
    wait_for(message: "the restarted fetcher to run a job") { Deckhand::TestJobs.runs.map(&:first).include?(jid) }
  end

  def test_quiet_is_not_ready_but_alive_and_stopping_is_neither
    launcher = launch
    launcher.quiet
    assert_equal [200, "ok\n"], probe(launcher, "/live")
    assert_equal [503, "quiet: finishing running jobs, taking no more\n"], probe(launcher, "/ready")
    assert_equal 404, probe(launcher, "/nope")[0]
    health = launcher.operations.health
    stopper = Thread.new { launcher.stop }
    stopper.join
    assert_equal ["stopping"], health.live
    assert_raises(Errno::ECONNREFUSED) { probe(launcher, "/live") }
  end

  def test_a_taken_port_fails_the_boot_with_the_reason
    taken = TCPServer.new("127.0.0.1", 0)
    config = new_config(health_check: "127.0.0.1:#{taken.addr[1]}")
    launcher = Deckhand::Server::Launcher.new(config.freeze!, on_signal: ->(_) {})
    error = assert_raises(Deckhand::ConfigError) { launcher.start }
    assert_match(/health: cannot listen on 127.0.0.1:\d+ .*choose another port/, error.message)
    assert_equal 0, redis.call("SCARD", "processes"), "nothing started"
  ensure
    taken&.close
  end

  def test_settings_are_checked_where_they_are_set
    error = assert_raises(Deckhand::ConfigError) { new_config(health_check: "localhost") }
    assert_includes error.message, "health_check must be a port (like 9394) or \"host:port\""
    assert_raises(Deckhand::ConfigError) { new_config(metrics_port: 70_000) }
    assert_equal 7434, new_config(health_check: 7434).health_address.port
    assert_equal "0.0.0.0", new_config(metrics_port: "9394").metrics_address.host
  end
end
