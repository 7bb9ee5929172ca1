# frozen_string_literal: true

require "test_helper"
require_relative "../../bench/lib/deckhand_bench/latency_proxy"

class LatencyProxyTest < Minitest::Test
  def teardown
    @proxy&.stop
    @echo&.close
    @echo_thread&.join
    super
  end

  def test_forwards_a_megabyte_of_random_bytes_both_ways_unchanged
    @proxy = start_proxy(echo_port, delay: 0.002)
    sent = Random.new(4).bytes(1024 * 1024)
    socket = TCPSocket.new("127.0.0.1", @proxy.port)
    writer = Thread.new { socket.write(sent) }
    received = read_exactly(socket, sent.bytesize)
    writer.join

    assert_equal sent.bytesize, received.bytesize
    assert_equal sent, received
  ensure
    socket&.close
  end

  def test_adds_at_least_the_round_trip_delay
    @proxy = start_proxy(echo_port, delay: 0.06)
    socket = TCPSocket.new("127.0.0.1", @proxy.port)
    elapsed = timed { socket.write("ping") and read_exactly(socket, 4) }

    assert_operator elapsed, :>=, 0.06
  ensure
    socket&.close
  end

  def test_one_way_delay_puts_the_whole_delay_on_one_direction
    @proxy = start_proxy(echo_port, delay: 0.05, direction: :downstream)

    assert_in_delta 0.05, @proxy.delay_toward(:downstream), 1e-9
    assert_in_delta 0.0, @proxy.delay_toward(:upstream), 1e-9
    socket = TCPSocket.new("127.0.0.1", @proxy.port)
    elapsed = timed { socket.write("x") and read_exactly(socket, 1) }

    assert_operator elapsed, :>=, 0.05
  ensure
    socket&.close
  end

  def test_redis_through_the_proxy_answers_later_with_the_same_bytes
    @proxy = start_proxy(Deckhand::RedisHarness.server.port, delay: 0.03)
    client = RedisClient.new(url: @proxy.url)
    value = Random.new(7).bytes(50_000)
    client.call("SET", "proxied", value)
    elapsed = timed { assert_equal value.b, client.call("GET", "proxied").b }

    assert_operator elapsed, :>=, 0.03
    assert_equal value.b, redis.call("GET", "proxied").b
  ensure
    client&.close
  end

  def test_reset_rate_one_resets_every_connection
    @proxy = start_proxy(Deckhand::RedisHarness.server.port, reset_rate: 1.0, reset_within: 0.0)
    client = RedisClient.new(url: @proxy.url, reconnect_attempts: 0)

    assert_raises(RedisClient::ConnectionError) do
      5.times { client.call("PING") && sleep(0.02) }
    end
    wait_for(message: "the reset to be counted") { @proxy.stats["reset"] >= 1 }
  ensure
    client&.close
  end

  def test_reset_all_breaks_open_connections_and_new_ones_work
    @proxy = start_proxy(Deckhand::RedisHarness.server.port)
    client = RedisClient.new(url: @proxy.url, reconnect_attempts: 0)

    assert_equal "PONG", client.call("PING")
    assert_equal 1, @proxy.reset_all
    assert_raises(RedisClient::ConnectionError) { client.call("PING") }
    assert_equal "PONG", RedisClient.new(url: @proxy.url, connect_timeout: 5, read_timeout: 5).call("PING") # a loaded machine
  ensure
    client&.close
  end

  def test_cut_replies_cuts_the_reply_to_the_chosen_command_after_redis_ran_it
    @proxy = start_proxy(Deckhand::RedisHarness.server.port).cut_replies(command: "LPUSH", at: [2])
    client = RedisClient.new(url: @proxy.url, reconnect_attempts: 0)

    assert_equal 1, client.call("LPUSH", "cut", "a")
    assert_equal "PONG", client.call("PING") # not an LPUSH: not counted
    assert_raises(RedisClient::ConnectionError) { client.call("LPUSH", "cut", "b") }
    assert_equal 3, client.call("LPUSH", "cut", "c") # a new connection; the third LPUSH is not cut
    assert_equal %w[c b a], redis.call("LRANGE", "cut", 0, -1) # the second ran: only its reply was lost
    assert_equal 1, @proxy.stats["cut"]
  ensure
    client&.close
  end

  def test_stop_leaves_no_thread_behind
    @proxy = start_proxy(Deckhand::RedisHarness.server.port, delay: 0.001)
    3.times { RedisClient.new(url: @proxy.url).call("PING") }
    @proxy.stop

    assert_empty(Thread.list.select { |t| t.name.to_s.start_with?("latency-proxy") })
  end

  def test_rejects_an_unknown_direction
    assert_raises(ArgumentError) { DeckhandBench::LatencyProxy.new(upstream_host: "x", upstream_port: 1, direction: :sideways) }
  end

  private

  def start_proxy(port, **options)
    DeckhandBench::LatencyProxy.start(upstream_host: "127.0.0.1", upstream_port: port, **options)
  end

  # A server that echoes each connection's bytes back, until closed.
  def echo_port
    @echo = TCPServer.new("127.0.0.1", 0)
    @echo_thread = Thread.new do
      Thread.current.report_on_exception = false
      conns = []
      loop do
        conn = @echo.accept
        conns << Thread.new(conn) do |c|
          IO.copy_stream(c, c)
        rescue IOError, SystemCallError
          nil
        ensure
          c.close
        end
      end
    rescue IOError
      conns.each(&:join)
    end
    @echo.addr[1]
  end

  def read_exactly(socket, size)
    buffer = +""
    buffer << socket.readpartial(size - buffer.bytesize) while buffer.bytesize < size
    buffer
  end

  def timed
    started = monotonic
    yield
    monotonic - started
  end
end
