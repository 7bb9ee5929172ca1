# frozen_string_literal: true

require "test_helper"
require "deckhand/server"

# How background loops report Redis failing: a passing fault once per outage,
# a refusal that needs a human again and again until it is fixed.
class OutageTest < Minitest::Test
  def setup
    super
    @log = StringIO.new
  end

  def outage(**options) = Deckhand::Server::Outage.new(Logger.new(@log), "heartbeat", **options)

  def lines = @log.string.lines

  def test_a_passing_fault_is_logged_once_per_outage_and_its_end_once
    o = outage
    delays = Array.new(4) { o.failed(Deckhand::ConnectionError.new("Redis at redis://x refused the connection")) }
    assert_equal [0.05, 0.1, 0.25, 0.5], delays
    assert_equal 1, lines.size
    assert_match(/WARN -- : heartbeat: Redis at redis:\/\/x refused the connection; retrying/, lines.first)
    o.over
    o.over
    assert_equal 2, lines.size
    assert_match(/heartbeat: Redis answers again after 4 failed attempts/, lines.last)
  end

  def test_a_refusal_is_logged_with_its_fix_and_repeated_while_it_lasts
    o = outage(repeat: 0.05)
    error = Deckhand::CommandError.new("Redis refused ZADD on key \"retry\": WRONGTYPE. Look with redis-cli TYPE", code: "WRONGTYPE", key: "retry")
    o.failed(error)
    o.failed(error)
    assert_equal 1, lines.size
    sleep 0.06
    o.failed(error)
    assert_equal 2, lines.size
    lines.each { |line| assert_match(/ERROR -- : heartbeat: .*"retry".*retrying until this is fixed/, line) }
    assert_equal 5, Array.new(20) { o.failed(error) }.last, "the wait is capped"
  end
end
